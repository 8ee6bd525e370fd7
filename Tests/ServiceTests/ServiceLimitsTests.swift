import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QueryLanguage
import QuickBlox
import Service
import Testing

/// What one request, and many at once, may cost: exports (one at a time, quota, retention, delete), query
/// deadlines, the concurrency cap, health under load, and connections left half-sent.
@Suite("Service limits: exports, deadlines, concurrency, slow clients", .serialized)
struct ServiceLimitsTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    func export(_ client: some TestClientProtocol, _ body: String = "{}") async throws -> TestResponse {
        try await client.execute(uri: "/api/exports", method: .post, headers: Self.json, body: ByteBuffer(string: body))
    }

    /// The names in the exports folder, hidden ones included.
    func listing(_ fixture: ServiceFixture) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixture.path("exports"))) ?? []).sorted()
    }

    @Test func exportsRunOneAtATime() async throws {
        let fixture = try await ServiceFixture.make(messages: 12_000)
        defer { fixture.remove() }
        try await fixture.serve { client in
            let port = client.port!
            // Four clients, each on its own connection, ask at once.
            let answers = try await withThrowingTaskGroup(of: TestClient.Response.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        try await OneShot.send(
                            port: port,
                            .init(
                                "/api/exports", method: .post, authority: "localhost", headers: Self.json,
                                body: ByteBuffer(string: "{}")))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.filter { $0.head.status == .created }.count >= 1)
            #expect(answers.allSatisfy { $0.head.status == .created || $0.head.status == .conflict })
            let conflict = try #require(answers.first { $0.head.status == .conflict })
            #expect(String(buffer: conflict.body ?? ByteBuffer()).contains("export_running"))
            #expect(conflict.head.headerFields[.retryAfter] != nil)
            // Once it is done, the next one runs.
            #expect(try await export(client).status == .created)
        }
    }

    @Test func theExportsFolderHasAByteQuotaAndACountQuota() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(atPath: fixture.path("exports"), withIntermediateDirectories: true)
        // Someone else's file fills the folder to 8 KiB under a 1 MiB quota: the export starts and is stopped.
        try Data(count: (1 << 20) - 8192).write(to: URL(fileURLWithPath: fixture.path("exports/other.bin")))
        try await fixture.serve(configure: { $0.limits.exportsMaxBytes = 1 << 20 }) { client in
            let stopped = try await export(client)
            #expect(stopped.status.code == 507)
            #expect(try stopped.json["error"]?["code"] == .string("export_quota"))
            #expect(listing(fixture) == ["other.bin"])  // nothing half-written is left
        }
        try FileManager.default.removeItem(atPath: fixture.path("exports/other.bin"))
        try await fixture.serve(configure: { $0.limits.exportsMaxCount = 1 }) { client in
            #expect(try await export(client).status == .created)
            let refused = try await export(client)
            #expect(refused.status.code == 507)
            #expect(try refused.json["error"]?["message"]?.stringValue?.contains("DELETE /api/exports/") == true)
        }
    }

    @Test func exportsExpireAndCanBeDeleted() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let folder = fixture.path("exports")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let old = "export-20200101T000000Z-0badc0de.tar.gz"
        let others = ["case-42.tar.gz", "export-notours.tar.gz"]
        let eightDaysAgo = Date(timeIntervalSinceNow: -8 * 86_400)
        for name in [old, old + ".sha256"] + others {
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
            try FileManager.default.setAttributes([.modificationDate: eightDaysAgo], ofItemAtPath: folder + "/" + name)
        }
        // Left by an export whose process died: removed when the service starts.
        try FileManager.default.createDirectory(
            atPath: folder + "/.qbarchive-staging-999999999-x", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/.case.tar.gz.partial-999999999"))
        try await fixture.serve { client in
            #expect(listing(fixture) == others.sorted())  // the service's old bundle went at start; others stay
            let made = try await export(client)
            let name = try #require(try made.json["name"]?.stringValue)
            #expect(try await client.execute(uri: "/api/exports/\(name)", method: .get).status == .ok)
            let deleted = try await client.execute(uri: "/api/exports/\(name)", method: .delete)
            #expect(deleted.status == .noContent)
            #expect(try await client.execute(uri: "/api/exports/\(name)", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/exports/\(name)", method: .delete).status == .notFound)
            for bad in ["..%2Farchive.sqlite", ".hidden.tar.gz", "case-42.tar.gz.sha256", "%2Fetc%2Fpasswd"] {
                #expect(try await client.execute(uri: "/api/exports/\(bad)", method: .delete).status == .notFound)
            }
            #expect(listing(fixture) == others.sorted())
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        let expired = try #require(entries.first { $0.action == "export_expire" })
        #expect(expired.detail.contains(old))
        #expect(entries.contains { $0.action == "export_delete" })
    }

    /// Only bundles and their checksum files leave the exports folder: not an archive copied there, its `-wal`,
    /// a key or notes; a symbolic link, even to a bundle, is neither listed, downloaded nor deleted.
    @Test func onlyBundlesAndTheirChecksumsAreDownloadable() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let folder = fixture.path("exports")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let strays = [
            "copy.sqlite", "copy.sqlite-wal", "notes.txt", "compliance", "compliance.pub", "manifest.json", "x.sha256",
            "case.tar.gz.bak", "tar.gz",
        ]
        for name in strays { try Data("secret".utf8).write(to: URL(fileURLWithPath: folder + "/" + name)) }
        try Data("bundle".utf8).write(to: URL(fileURLWithPath: folder + "/case-1.tar.gz"))
        try Data("digest  case-1.tar.gz\n".utf8).write(to: URL(fileURLWithPath: folder + "/case-1.tar.gz.sha256"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/link.zip", withDestinationPath: "case-1.tar.gz")
        try await fixture.serve { client in
            for name in strays + ["link.zip"] {
                let download = try await client.execute(uri: "/api/exports/\(name)", method: .get)
                #expect(download.status == .notFound, "\(name)")
                #expect(try await client.execute(uri: "/api/exports/\(name)", method: .delete).status == .notFound)
            }
            let bundle = try await client.execute(uri: "/api/exports/case-1.tar.gz", method: .get)
            #expect(bundle.status == .ok && String(buffer: bundle.body) == "bundle")
            let checksum = try await client.execute(uri: "/api/exports/case-1.tar.gz.sha256", method: .get)
            #expect(checksum.status == .ok && String(buffer: checksum.body) == "digest  case-1.tar.gz\n")
            let listed = try await client.execute(uri: "/api/exports", method: .get)
            let names = try listed.json["exports"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
            #expect(names == ["case-1.tar.gz"])
        }
        #expect(FileManager.default.fileExists(atPath: folder + "/link.zip"))
    }

    /// The archive file moved or replaced (a restored backup) under a running service: it still reads the file it
    /// opened, so health says so (503, and why) until it is restarted, rather than ok beside another file's data.
    @Test(arguments: ["moved", "replaced"])
    func healthFailsWhenThePathNoLongerNamesTheServedFile(how: String) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let path = fixture.archivePath
        try await fixture.serve { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
            if how == "replaced" { try FileManager.default.copyItem(atPath: path + ".moved", toPath: path) }
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .serviceUnavailable, "\(health.text)")
            #expect(health.text.contains("not the one this service opened"), "\(health.text)")
            if how == "replaced" { try FileManager.default.removeItem(atPath: path) }
            try FileManager.default.moveItem(atPath: path + ".moved", toPath: path)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test func aReadPastTheDeadlineIsStoppedAndHealthStillAnswers() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve(configure: { $0.limits.statementTimeout = .nanoseconds(1) }) { client in
            for uri in [
                "/api/search?q=message+ctn+%22e%22", "/api/stats", "/search?q=message+ctn+%22e%22", "/dashboard",
            ] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .serviceUnavailable, "\(uri)")
                #expect(response.text.contains("query_timeout") || response.text.contains("longer than"))
            }
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
        }
        // The archive handle itself: the same read with no limit succeeds, with a tiny one it is stopped.
        let query = try QueryParser(now: ArchiveTime.now()).parse("message ctn \"e\"")
        let limited = try SQLiteArchive.openReadOnly(at: fixture.archivePath, statementTimeout: .nanoseconds(1))
        await #expect(throws: ArchiveError.self) { _ = try await limited.search(query) }
        #expect(try await SQLiteArchive.openReadOnly(at: fixture.archivePath).search(query).count > 0)
    }

    @Test func manyHeavyQueriesAtOnceGetTurnsOrA429AndHealthAnswersThroughout() async throws {
        let fixture = try await ServiceFixture.make(messages: 6000)
        defer { fixture.remove() }
        try await fixture.serve(configure: {
            $0.limits.concurrentQueries = 1
            $0.limits.queuedQueries = 2
        }) { client in
            let heavy = "/api/search?q=message+ctn+%22e%22+or+message+ctn+%22a%22&sort=rank&limit=500"
            let port = client.port!
            async let load = withThrowingTaskGroup(of: (HTTPResponse.Status, String?).self) { group in
                for _ in 0..<24 {
                    group.addTask {
                        let response = try await OneShot.send(
                            port: port, .init(heavy, method: .get, authority: "localhost"))
                        return (response.head.status, response.head.headerFields[.retryAfter])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            var slowest = Duration.zero
            let clock = ContinuousClock()
            for _ in 0..<10 {
                let started = clock.now
                #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
                slowest = max(slowest, started.duration(to: clock.now))
            }
            let results = try await load
            #expect(results.allSatisfy { $0.0 == .ok || $0.0 == .tooManyRequests })
            #expect(results.contains { $0.0 == .tooManyRequests && $0.1 == "1" })
            #expect(results.contains { $0.0 == .ok })
            #expect(slowest < .seconds(1))
        }
    }

    @Test func halfSentRequestsAndSilentConnectionsAreClosed() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        // Deadlines of 1 s for a request's head and body; silence between requests is allowed far longer, so
        // what closes these connections is the request deadline, not the idle timer.
        try await fixture.serve(configure: {
            $0.limits.headerTimeout = .seconds(1)
            $0.limits.bodyTimeout = .seconds(1)
            $0.limits.idleTimeout = .seconds(30)
        }) { client in
            let port = client.port!
            let clock = ContinuousClock()
            // Half a head, then silence.
            var started = clock.now
            let head = try RawConnection(port: port)
            try head.send("GET /api/search?q=refund HTTP/1.1\r\nHost: localhost\r\n")
            #expect(head.readUntilClosed(timeout: 8) != nil)
            #expect(started.duration(to: clock.now) < .seconds(5))
            // A head and then a body dripping a byte every 200 ms: each byte is activity, but the deadlines hold.
            for prefix in [
                "",
                "POST /api/exports HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 1000\r\n\r\n",
            ] {
                started = clock.now
                let drip = try RawConnection(port: port)
                if !prefix.isEmpty { try drip.send(prefix) }
                let slow = prefix.isEmpty ? "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: " : "{\"where\": \""
                for byte in Array(slow.utf8) + Array(repeating: UInt8(ascii: "a"), count: 60) {
                    guard (try? drip.send([byte])) != nil, started.duration(to: clock.now) < .seconds(8) else { break }
                    try await Task.sleep(for: .milliseconds(200))
                }
                #expect(started.duration(to: clock.now) < .seconds(8), "\(prefix.isEmpty ? "head" : "body") drip")
                #expect(drip.readUntilClosed(timeout: 5) != nil)
            }
        }
        try await fixture.serve(configure: { $0.limits.idleTimeout = .seconds(1) }) { client in
            // A whole request is answered; then the silent kept-alive connection is closed.
            let idle = try RawConnection(port: client.port!)
            try idle.send("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = try #require(idle.readUntilClosed(timeout: 5))
            #expect(answer.hasPrefix("HTTP/1.1 200"))
        }
        let actions = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries().map(\.action)
        #expect(actions == ["serve", "serve"])
    }
}

/// One request on a connection of its own (the test client sends its requests one after another).
enum OneShot {
    static func send(port: Int, _ request: TestClient.Request) async throws -> TestClient.Response {
        let client = TestClient(host: "localhost", port: port, configuration: .init(timeout: .seconds(60)))
        client.connect()
        do {
            let response = try await client.execute(request)
            try await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }
}

/// A plain TCP connection to the service, for clients that misbehave on purpose.
final class RawConnection: @unchecked Sendable {
    let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(socket) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        let sent = bytes.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { throw POSIXError(.EPIPE) }
    }

    /// Everything the server sends until it closes the connection, or `nil` when it is still open after
    /// `timeout` seconds.
    func readUntilClosed(timeout: Int) -> String? {
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            if count < 0 { return errno == ECONNRESET ? String(decoding: received, as: UTF8.self) : nil }
            received += buffer[..<count]
        }
    }
}
