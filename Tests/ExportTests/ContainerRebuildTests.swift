import ArchiveTestSupport
import Crypto
import Foundation
import QuickBlox
import Testing

@testable import Export

/// The verifier encodes a bundle's contents again on a thread of its own (`ContainerRebuild`) and counts
/// records as the bytes stream by (`RecordCounter`); both must give what the plain, one-thread way gives.
@Suite("verification: the canonical encoding on its own thread, records counted")
struct ContainerRebuildTests {
    /// The hand-off queue's bound in these tests (8 MiB in use), so that a small entry overruns it.
    static let queue = 100_000

    /// Entries of several sizes, the largest written in more pieces than the hand-off queue holds.
    static func entries(seed: UInt64) -> [(path: String, bytes: [UInt8], pieces: Int)] {
        var random = SeededRandom(seed: seed)
        // Random blocks repeated (random bytes one by one would take the test's time): past the queue twice.
        let block = (0..<65_536).map { _ in UInt8.random(in: 0...255, using: &random) }
        let large =
            Array((0..<(Self.queue * 2 / block.count + 1)).map { _ in block }.joined())
            + block.prefix(12_345)
        let text = Array(String(repeating: "Καλημέρα — 你好 🙂 \"quoted\"\n", count: 3_000).utf8)
        return [
            ("manifest.json", Array(#"{"version":1}"#.utf8), 1),
            ("empty.txt", [], 1),
            ("attachments/large.bin", large, Int.random(in: 40...400, using: &random)),
            ("messages.jsonl", text, Int.random(in: 1...97, using: &random)),
        ]
    }

    /// SHA-256 (hex) of the container `ContainerWriter` writes for `entries` on the calling thread.
    static func directDigest(
        _ format: ContainerFormat, _ encoding: ContainerEncoding,
        _ entries: [(path: String, bytes: [UInt8], pieces: Int)]
    ) throws -> String {
        var hasher = SHA256()
        let writer = try ContainerWriter(format: format, encoding: encoding) { hasher.update(data: $0) }
        for entry in entries {
            try writer.beginEntry(path: entry.path, size: entry.bytes.count, modificationTime: 1_700_000_000)
            for piece in pieces(entry.bytes, entry.pieces) { try writer.write(piece) }
        }
        try writer.finish()
        return BundleManifest.hex(hasher.finalize())
    }

    static func pieces(_ bytes: [UInt8], _ count: Int) -> [[UInt8]] {
        guard !bytes.isEmpty else { return [] }
        let size = max(1, (bytes.count + count - 1) / count)
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    @Test(arguments: [ContainerFormat.tarZst, .tarGz, .zip], [UInt64(1), 2])
    func theCanonicalEncodingIsTheSameOnItsOwnThread(format: ContainerFormat, seed: UInt64) throws {
        for encoding in ContainerEncoding.allCases {
            try Self.checkRebuild(format, encoding, seed: seed)
        }
    }

    static func checkRebuild(_ format: ContainerFormat, _ encoding: ContainerEncoding, seed: UInt64) throws {
        let entries = Self.entries(seed: seed)
        let rebuild = ContainerRebuild(format: format, encoding: encoding, maxQueuedBytes: Self.queue)
        defer { rebuild.abandon() }
        for entry in entries {
            try rebuild.beginEntry(path: entry.path, size: entry.bytes.count, modificationTime: 1_700_000_000)
            for piece in Self.pieces(entry.bytes, entry.pieces) { try rebuild.write(piece) }
        }
        #expect(try rebuild.finish() == Self.directDigest(format, encoding, entries), "\(format) \(encoding)")
    }

    /// The writer's error reaches the verifier: at a later step or at the end, never lost, never a hang.
    @Test(arguments: [ContainerFormat.tarZst, .tarGz, .zip])
    func theWritersErrorReachesTheVerifier(format: ContainerFormat) throws {
        let rebuild = ContainerRebuild(format: format, encoding: .current)
        defer { rebuild.abandon() }
        try rebuild.beginEntry(path: "a.txt", size: 3, modificationTime: 0)
        let error = #expect(throws: ContainerError.self) {
            // Four bytes where three were declared: the writer fails; a later step or `finish` says so.
            try rebuild.write([1, 2, 3, 4])
            try rebuild.beginEntry(path: "b.txt", size: 1, modificationTime: 0)
            _ = try rebuild.finish()
        }
        #expect(error?.entry == "a.txt" || error?.message.contains("a.txt") == true, "\(String(describing: error))")
    }

    /// A verification that fails half way abandons the encoding; its thread ends (an abandoned rebuild never
    /// finishes, and `finish` after it reports the stop instead of waiting).
    @Test func anAbandonedEncodingEnds() throws {
        let rebuild = ContainerRebuild(format: .tarZst, encoding: .current)
        try rebuild.beginEntry(path: "a.txt", size: 10, modificationTime: 0)
        try rebuild.write([1, 2, 3])
        rebuild.abandon()
        #expect(throws: ContainerError.self) { _ = try rebuild.finish() }
        rebuild.abandon()
    }

    /// Records counted over any split of the bytes into chunks, against counting the whole at once by hand.
    @Test(arguments: [false, true], [UInt64(3), 4, 5])
    func recordsAreCountedWhateverTheChunks(csv: Bool, seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let alphabet = Array("ab,\"\n\n é".utf8)
        let bytes = (0..<50_000).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] }
        var quoted = false
        var lines = 0
        for byte in bytes {
            if csv, byte == UInt8(ascii: "\"") { quoted.toggle() } else if byte == 10, !quoted { lines += 1 }
        }
        let expected = csv ? max(0, lines - 1) : lines
        for _ in 0..<5 {
            var counter = RecordCounter(csv: csv)
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + Int.random(in: 0...3_000, using: &random))
                counter.count(Array(bytes[start..<end]))
                start = end
            }
            counter.count([])
            #expect(counter.records == expected)
        }
    }
}
