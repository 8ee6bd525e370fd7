import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Synchronization
import Testing

@Suite("Downloads resume where a failed attempt stopped")
struct DownloadResumeTests {
    @Test("--truncate-rate 1: every attempt keeps what arrived and asks for the rest; no byte comes twice")
    func truncatedEveryTime() async throws {
        try await ClientHarness.run({ $0.truncateRate = 1 }) { harness in
            let (uid, size, sha256) = try await harness.truthBlob { (50_000...400_000).contains($0) }
            let sink = MemorySink()
            // Each answer brings half of what is left, so only resuming ever finishes.
            let file = try await harness.apiKeyClient(attempts: 40, maxDelay: .milliseconds(100)).download(
                .blob(uid), into: sink, maxBytes: 1 << 30)
            #expect(file.bytes == size)
            #expect(file.attempts > 10)
            #expect(file.resumedFrom > 0)
            #expect(sink.digest == sha256)
            #expect(sink.written == size, "every byte arrived once")
            #expect(sink.restarts == 1, "only the first attempt starts the sink")
        }
    }

    @Test(
        "--bad-length-rate 1: the whole file under a Content-Length claiming more; the 416 that follows says it is complete"
    )
    func misstatedLength() async throws {
        try await ClientHarness.run({ $0.badLengthRate = 1 }) { harness in
            let (uid, size, sha256) = try await harness.truthBlob { (50_000...400_000).contains($0) }
            let sink = MemorySink()
            let file = try await harness.apiKeyClient(attempts: 3).download(.blob(uid), into: sink, maxBytes: 1 << 30)
            #expect(file.bytes == size)
            #expect(file.attempts == 2)
            #expect(file.resumedFrom == size)
            #expect(file.contentType != nil, "the type the bytes came with")
            #expect(sink.digest == sha256)
            #expect(sink.written == size)
        }
    }

    @Test("--attachment-max-bytes counts the bytes kept from earlier attempts")
    func limitCountsKeptBytes() async throws {
        try await ClientHarness.run({ $0.truncateRate = 1 }) { harness in
            let (uid, size, _) = try await harness.truthBlob { (50_000...400_000).contains($0) }
            let sink = MemorySink()
            // The first answer brings half the file, within the limit; the rest would exceed it.
            let client = harness.apiKeyClient(attempts: 40, maxDelay: .milliseconds(100))
            await #expect(throws: DownloadError.tooLarge(size: nil)) {
                try await client.download(.blob(uid), into: sink, maxBytes: size * 3 / 4)
            }
            #expect(sink.written <= size * 3 / 4)
        }
    }

    @Test("A server that ignores Range sends the whole file again, which replaces the bytes held")
    func rangeIgnored() async throws {
        let file = FileServer(bytes: (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        try await file.run(honourRanges: false) { url in
            let sink = MemorySink()
            let result = try await file.client(url).download(
                .url(url, authenticated: false), into: sink, maxBytes: 1 << 30)
            #expect(result.bytes == file.bytes.count)
            #expect(result.resumedFrom == 0)
            #expect(sink.bytes == file.bytes)
            #expect(sink.restarts == 2, "the 200 started the sink over")
            #expect(file.ranges == ["bytes=150000-"])
        }
    }

    @Test("A 206 for another offset is refused and the download starts over")
    func wrongOffset() async throws {
        let file = FileServer(bytes: (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await file.run(honourRanges: true, offsetError: 10) { url in
            let sink = MemorySink()
            let result = try await file.client(url).download(
                .url(url, authenticated: false), into: sink, maxBytes: 1 << 30)
            #expect(sink.bytes == file.bytes)
            #expect(result.attempts == 3)
            #expect(result.resumedFrom == 0)
            #expect(file.ranges == ["bytes=150000-", nil])
        }
    }

    @Test("A changed ETag means a changed file: the rest is refused and the download starts over")
    func changedETag() async throws {
        let file = FileServer(bytes: (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try await file.run(honourRanges: true, changeETag: true) { url in
            let sink = MemorySink()
            let result = try await file.client(url).download(
                .url(url, authenticated: false), into: sink, maxBytes: 1 << 30)
            #expect(sink.bytes == file.bytes)
            #expect(result.attempts == 3)
            #expect(file.ranges == ["bytes=150000-", nil])
        }
    }

    @Test(
        "A prefix is kept only when the answer offered ranges and was not content-encoded",
        arguments: [
            (200, ["accept-ranges": "bytes", "etag": "\"a\""], 10, ResumePoint(offset: 10, etag: "\"a\"")),
            (206, ["content-range": "bytes 5-9/20"], 10, ResumePoint(offset: 10, etag: nil)),
            (200, [:], 10, nil),
            (200, ["accept-ranges": "none"], 10, nil),
            (200, ["accept-ranges": "bytes", "content-encoding": "gzip"], 10, nil),
            (200, ["accept-ranges": "bytes"], 0, nil),
            (500, ["accept-ranges": "bytes"], 10, nil),
        ])
    func resumePoint(status: Int, headers: [String: String], held: Int, expected: ResumePoint?) {
        #expect(ResumePoint.after(status: status, headers: headers, sinkBytes: held) == expected)
    }
}

extension ClientHarness {
    /// The uid, size and SHA-256 of the first seeded blob whose size `predicate` accepts.
    func truthBlob(size predicate: (Int) -> Bool) async throws -> (String, Int, String) {
        for line in await truth() {
            let json = try JSONValue(parsing: Array(line.utf8))
            guard json["kind"] == "blob", let record = json["record"], let size = record["size"]?.lenientInt,
                predicate(size), let uid = record["uid"]?.stringValue, let sha256 = json["sha256"]?.stringValue
            else { continue }
            return (uid, size, sha256)
        }
        throw TestFailure("no seeded blob of a fitting size")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A download sink in memory that counts what it was given.
final class MemorySink: DownloadSink {
    private struct State {
        var bytes: [UInt8] = []
        var written = 0
        var restarts = 0
    }
    private let state = Mutex(State())

    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        state.withLock {
            $0.bytes.append(contentsOf: chunk)
            $0.written += chunk.count
        }
        return true
    }

    func restart() throws {
        state.withLock {
            $0.bytes.removeAll()
            $0.restarts += 1
        }
    }

    var bytes: [UInt8] { state.withLock { $0.bytes } }
    /// Bytes written over the sink's life, restarts included.
    var written: Int { state.withLock { $0.written } }
    var restarts: Int { state.withLock { $0.restarts } }
    var digest: String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }
}

/// A plain file server over real HTTP, unlike the emulator in how it treats ranges: its first answer
/// always stops half-way; then it ignores `Range`, answers from the wrong offset, or changes the `ETag`.
final class FileServer: Sendable {
    let bytes: [UInt8]
    private let seen = Mutex<[String?]>([])

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The `Range` header of each request after the first.
    var ranges: [String?] { Array(seen.withLock { $0 }.dropFirst()) }

    func client(_ url: String) -> QuickBloxClient {
        var configuration = ClientConfiguration(endpoint: url, credentials: .apiKey("unused"))
        configuration.retry = RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50))
        configuration.maxRequestsPerSecond = 0
        return QuickBloxClient(configuration: configuration, logger: ClientHarness.quiet)
    }

    func run(
        honourRanges: Bool, offsetError: Int = 0, changeETag: Bool = false,
        _ body: @Sendable (String) async throws -> Void
    ) async throws {
        let router = Router()
        router.get("/file") { request, _ -> Response in
            let number = self.seen.withLock {
                $0.append(request.headers[.range])
                return $0.count
            }
            var headers: HTTPFields = [.acceptRanges: "bytes", .eTag: changeETag && number > 1 ? "\"v2\"" : "\"v1\""]
            headers[.contentType] = "application/octet-stream"
            let all = self.bytes
            if number == 1 {
                // Half the file, then the connection closes.
                return Response(
                    status: .ok, headers: headers,
                    body: ResponseBody(contentLength: all.count) { writer in
                        try await writer.write(ByteBuffer(bytes: all[0..<(all.count / 2)]))
                        throw CancellationError()
                    })
            }
            if honourRanges, let range = request.headers[.range], range.hasPrefix("bytes="),
                let start = Int(range.dropFirst(6).dropLast())
            {
                let from = start - offsetError
                headers[.contentRange] = "bytes \(from)-\(all.count - 1)/\(all.count)"
                return Response(
                    status: .partialContent, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: all[from...])))
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: all)))
        }
        try await Application(router: router).test(.live) { client in
            try await body("http://127.0.0.1:\(client.port!)/file")
        }
    }
}
