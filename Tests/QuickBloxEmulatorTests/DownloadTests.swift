import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Downloads: faults, large files, ranges")
struct DownloadTests {
    @Test("--truncate-rate 1: a download stops short of the Content-Length it promised")
    func truncated() async throws {
        try await EmulatorHarness.run({ $0.truncateRate = 1 }) { harness in
            let truth = try await harness.truthBlob { ($0.blob.size ?? 0) > 100_000 }
            let size = try #require(truth.blob.size)
            let result = try await harness.curlDownload(truth.blob.uid)
            // curl 18: transfer closed with outstanding read data remaining.
            #expect(result.exit == 18, "curl said \(result)")
            #expect(result.status == 200)
            #expect(result.declared == size)
            #expect(result.received < size)
            let stats = try await harness.json("/_emulator/stats")
            #expect((stats["faults"]?["truncate"]?.lenientInt ?? 0) >= 2)
        }
    }

    @Test("--bad-length-rate 1: every byte of the file arrives, but Content-Length claims more")
    func badLength() async throws {
        try await EmulatorHarness.run({ $0.badLengthRate = 1 }) { harness in
            let truth = try await harness.truthBlob { ($0.blob.size ?? 0) > 100_000 }
            let size = try #require(truth.blob.size)
            let result = try await harness.curlDownload(truth.blob.uid)
            #expect(result.exit == 18, "curl said \(result)")
            #expect(result.status == 200)
            #expect(result.received == size)
            #expect(result.declared > size)
            let stats = try await harness.json("/_emulator/stats")
            #expect(stats["faults"]?["bad_length"] != nil)
            // JSON answers meet the fault too.
            let users = try await EmulatorHarness.run([
                "curl", "-s", "-o", "/dev/null", "-H", "Authorization: ApiKey \(EmulatorHarness.apiKey)",
                "http://127.0.0.1:\(harness.port)/users.json",
            ])
            #expect(users.exit == 18)
        }
    }

    @Test("--fail-rate 1: downloads fail with 5xx like every QuickBlox endpoint")
    func failures() async throws {
        try await EmulatorHarness.run({ $0.failRate = 1 }) { harness in
            let truth = try await harness.truthBlob()
            let response = try await harness.request(
                .get, "/blobs/\(truth.blob.uid)/download", headers: EmulatorHarness.asUser(100_001))
            #expect([500, 502, 503].contains(response.status.code))
            #expect(QuickBloxErrorBody(json: try response.json) != nil)
        }
    }

    @Test("A 20-50 MB file streams in 64 KiB chunks and hashes to the truth's SHA-256")
    func largeFileStreams() async throws {
        try await EmulatorHarness.run({
            $0.users = 3
            $0.dialogs = 3
            $0.messages = 80
            $0.largeFileRate = 1
        }) { harness in
            let truth = try await harness.truthBlob()
            let size = try #require(truth.blob.size)
            #expect((20_000_000...50_000_000).contains(size))
            let message = try #require(
                try await harness.truthMessages().values.flatMap(\.attachments).first { $0.uid == truth.blob.uid })
            #expect(message.size == size, "the message's attachment states the large size")
            let url = "http://127.0.0.1:\(harness.port)/blobs/\(truth.blob.uid)/download"
            let result = try await EmulatorHarness.run([
                "sh", "-c",
                "curl -s -L --max-time 300 -H 'Authorization: ApiKey \(EmulatorHarness.apiKey)' '\(url)' | sha256sum",
            ])
            #expect(result.exit == 0)
            #expect(result.output.hasPrefix(truth.sha256))
            let downloads = try #require(try await harness.json("/_emulator/stats")["downloads"])
            #expect(downloads["bytes"] == .int(size))
            #expect(downloads["largest_chunk"] == .int(64 * 1024), "never more than one chunk at once")
            #expect((downloads["chunks"]?.lenientInt ?? 0) == (size + 65_535) / 65_536)
        }
    }

    @Test("Range: bytes=N-, N-M and -N answer 206 with Content-Range; past the end 416")
    func ranges() async throws {
        try await EmulatorHarness.run { harness in
            let truth = try await harness.truthBlob { ($0.blob.size ?? 0) > 10_000 && ($0.blob.size ?? 0) < 1_000_000 }
            let size = try #require(truth.blob.size)
            let whole = Array(try await harness.download(truth.blob.uid).body.readableBytesView)
            let redirect = try await harness.request(
                .get, "/blobs/\(truth.blob.uid)/download", headers: EmulatorHarness.asUser(100_001))
            let path = try EmulatorHarness.storagePath(redirect)
            let cases: [(String, Range<Int>)] = [
                ("bytes=1001-", 1001..<size), ("bytes=3-9", 3..<10), ("bytes=-100", (size - 100)..<size),
                ("bytes=\(size - 5)-\(size + 50)", (size - 5)..<size),
            ]
            for (header, range) in cases {
                let part = try await harness.request(.get, path, headers: [.range: header])
                #expect(part.status == .partialContent, "\(header)")
                #expect(part.headers[.contentRange] == "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)")
                #expect(Array(part.body.readableBytesView) == Array(whole[range]), "\(header)")
            }
            let beyond = try await harness.request(.get, path, headers: [.range: "bytes=\(size)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(size)")
            let several = try await harness.request(.get, path, headers: [.range: "bytes=0-1,5-6"])
            #expect(several.status == .ok && several.body.readableBytes == size)
        }
    }
}
