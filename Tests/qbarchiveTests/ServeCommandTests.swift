import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@Suite("qbarchive serve and audit (the built binary)")
struct ServeCommandTests {
    @Test func servesUntilSIGTERMAndTheAuditChainVerifies() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let directory = URL(fileURLWithPath: archive).deletingLastPathComponent().path
            let server = try RunningCommand([
                "serve", "--archive", archive, "--port", "0", "--exports", directory + "/exports",
            ])
            let line = try await server.firstLine()
            #expect(line.hasPrefix("serving \(archive) on http://127.0.0.1:"), "\(line)")
            let base = String(line.split(separator: " ")[3])
            let health = try Self.curl(base + "healthz")
            #expect(health.contains("\"status\":\"ok\""))
            let search = try Self.curl(base + "api/search?q=from:user2&limit=1")
            #expect(search.contains("\"count\":"))
            // DNS rebinding: a page whose name resolves to 127.0.0.1 is refused by its Host header.
            let rebound = try Self.curl(base + "api/search?q=refund", host: "evil.example")
            #expect(rebound.contains("\"host_not_allowed\""))
            server.signal(SIGTERM)
            #expect(await server.wait() == 0)

            let verify = try await CommandRunner.run(["audit", "verify", "--archive", archive])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("audit log intact: 2 entries, head "))
            let list = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
            let entries = list.stdout.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
            #expect(entries.map { $0["action"] } == [.string("serve"), .string("search")])
            #expect(entries.last?["detail"]?["q"] == .string("from:user2"))

            // Rewrite history behind the triggers' back: the chain names the first changed entry.
            try SQLiteSurgery.run(
                archive,
                """
                DROP TRIGGER audit_log_append_only_update;
                UPDATE audit_log SET detail = replace(detail, 'user2', 'user3') WHERE id = 2;
                """)
            let broken = try await CommandRunner.run(["audit", "verify", "--archive", archive, "--json"])
            #expect(broken.status == 20)
            #expect(broken.stderr.contains("audit log BROKEN at entry 2 (search at "))
            #expect(try JSONValue(parsing: broken.stdout)["first_broken"] == .int(2))
        }
    }

    /// `serve --verbose` logs each request — method, path, status, time — and never its query string (a search
    /// names what a moderator looked for); without `--verbose` nothing.
    @Test func verboseLogsEachRequestWithoutItsQueryString() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let directory = URL(fileURLWithPath: archive).deletingLastPathComponent().path
            for verbose in [true, false] {
                let server = try RunningCommand(
                    ["serve", "--archive", archive, "--port", "0", "--exports", directory + "/exports"]
                        + (verbose ? ["--verbose"] : []))
                let line = try await server.firstLine()
                let base = String(line.split(separator: " ")[3])
                _ = try Self.curl(base + "api/search?q=refund%20zq7secret&limit=1")
                _ = try Self.curl(base + "healthz")
                server.signal(SIGTERM)
                #expect(await server.wait() == 0)
                let log = server.standardError
                #expect(!log.contains("zq7secret"), "\(log)")
                if verbose {
                    #expect(log.contains("GET /api/search 200 "), "\(log)")
                    #expect(log.contains("GET /healthz 200 "), "\(log)")
                } else {
                    #expect(!log.contains("GET /"), "\(log)")
                }
            }
        }
    }

    @Test func refusesUnsafeSettingsWithUsageAndMissingArchivesWith10() async throws {
        let exposed = try await CommandRunner.run(["serve", "--archive", "/nonexistent.sqlite", "--host", "0.0.0.0"])
        #expect(exposed.status == 2)
        #expect(exposed.stderr.contains("refusing to listen on 0.0.0.0 without --token"))
        let short = try await CommandRunner.run([
            "serve", "--archive", "/x.sqlite", "--host", "0.0.0.0", "--token", "abc",
        ])
        #expect(short.status == 2 && short.stderr.contains("use at least 16"))
        let missing = try await CommandRunner.run(["serve", "--archive", "/nonexistent.sqlite"])
        #expect(missing.status == 10 && missing.stderr.contains("/nonexistent.sqlite"))
        let audit = try await CommandRunner.run(["audit", "verify", "--archive", "/nonexistent.sqlite"])
        #expect(audit.status == 10)
    }

    /// Swift would decode the bytes with replacement characters and search for those: a usage error instead.
    @Test func argumentsThatAreNotUTF8AreRefused() async throws {
        let script = #"exec "$0" search --archive /nonexistent.sqlite "$(printf 'caf\351')""#
        let result = try await CommandRunner.run(
            ["-c", script, CommandRunner.binary.path], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 2)
        #expect(result.stderr.contains("argument 4 is not valid UTF-8"))
    }

    /// A GET through the curl CLI (installed by `make deps`), off the cooperative pool.
    static func curl(_ url: String, host: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS", "--max-time", "20", url] + (host.map { ["-H", "Host: \($0)"] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
