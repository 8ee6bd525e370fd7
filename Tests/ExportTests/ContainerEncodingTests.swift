import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import Export

/// The parallel encoding of bundles (``ContainerEncoding``): tar.gz in pigz's layout, tar.zst in zstd's
/// multi-threaded mode. Its bytes must not depend on the writes' sizes or the number of threads, any gzip or zstd
/// reader must read it, and `verify` must encode a bundle again in the encoding its manifest names.
@Suite("containers compressed on every core")
struct ContainerEncodingTests {
    static let block = ParallelGzip.blockSize

    /// Text with runs that repeat across block boundaries, and random bytes: both of deflate's cases.
    static func input(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let line = Array("Καλημέρα — 你好 🙂 invoice #\(seed)\n".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            if Bool.random(using: &random) {
                bytes += (0..<Int.random(in: 1...5_000, using: &random)).map { _ in
                    UInt8.random(in: 0...255, using: &random)
                }
            } else {
                for _ in 0..<Int.random(in: 1...400, using: &random) { bytes += line }
            }
        }
        return Array(bytes.prefix(count))
    }

    /// `bytes` through a ``ParallelGzip``, written in pieces of random sizes.
    static func gzip(_ bytes: [UInt8], maxInFlight: Int, seed: UInt64) throws -> [UInt8] {
        var random = SeededRandom(seed: seed)
        var output: [UInt8] = []
        let gzip = ParallelGzip(level: 6, maxInFlight: maxInFlight) { output += $0 }
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + Int.random(in: 1...(2 * Self.block), using: &random))
            try gzip.write(Array(bytes[start..<end]))
            start = end
        }
        try gzip.finish()
        return output
    }

    /// Runs `gzip` (or another tool) with `input` on its standard input; its status and standard output.
    static func run(_ tool: String, _ arguments: [String], input: [UInt8]) throws -> (Int32, [UInt8]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("enc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("in")
        try Data(input).write(to: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments + [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](output))
    }

    @Test(arguments: [0, 1, block - 1, block, block + 1, 3 * block + 17, 7 * block])
    func gzipReadsEverySizeBackWhateverTheWritesAndThreads(count: Int) throws {
        let bytes = Self.input(count, seed: UInt64(count))
        let one = try Self.gzip(bytes, maxInFlight: 1, seed: 1)
        let many = try Self.gzip(bytes, maxInFlight: 8, seed: 2)
        #expect(one == many, "the bytes depend on the writes or the threads")
        let (status, unpacked) = try Self.run("/usr/bin/gzip", ["-dc"], input: one)
        #expect(status == 0)
        #expect(unpacked == bytes)
        #expect(Array(one.prefix(10)) == [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
    }

    /// Each block is primed with the bytes before it: 16 KiB of random bytes repeated over three blocks
    /// compresses to about one copy (without the dictionary, each block would hold it again).
    @Test func eachBlockSeesTheBytesBeforeIt() throws {
        var random = SeededRandom(seed: 9)
        let unit = (0..<(16 << 10)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let bytes = Array(Array(repeating: unit, count: 24).joined())
        #expect(bytes.count == 3 * Self.block)
        let packed = try Self.gzip(bytes, maxInFlight: 4, seed: 3)
        #expect(packed.count < unit.count + 8_000, "\(packed.count) bytes")  // without: over 3 × 16 KiB
        #expect(try Self.run("/usr/bin/gzip", ["-dc"], input: packed).1 == bytes)
    }

    /// `count` bytes made cheaply of one random megabyte and numbered lines (the tests' large files).
    static func large(_ count: Int, seed: UInt64) -> [UInt8] {
        let unit = Self.input(1 << 20, seed: seed)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + unit.count)
        var copy = 0
        while bytes.count < count {
            bytes += Array("copy \(copy)\n".utf8) + unit
            copy += 1
        }
        return Array(bytes.prefix(count))
    }

    /// Both encodings hold the same tar stream; only the compression differs — once the container is larger
    /// than one block of gzip (128 KiB) or one job of zstd (8 MiB at level 3): below that, both encodings write
    /// the same bytes.
    @Test(arguments: [ContainerFormat.tarGz, .tarZst])
    func bothEncodingsHoldTheSameTar(format: ContainerFormat) throws {
        let entries = [
            ("manifest.json", Array(#"{"a":1}"#.utf8)), ("messages.jsonl", Self.large(20 << 20, seed: 4)),
            ("empty.txt", []), ("transcripts/x.txt", Self.input(70_000, seed: 5)),
        ]
        var tars: [[UInt8]] = []
        var containers: [[UInt8]] = []
        for encoding in ContainerEncoding.allCases {
            var bytes: [UInt8] = []
            let writer = try ContainerWriter(format: format, encoding: encoding) { bytes += $0 }
            for (path, data) in entries {
                try writer.beginEntry(path: path, size: data.count, modificationTime: 1_700_000_000)
                try writer.write(data)
            }
            try writer.finish()
            let tool = format == .tarGz ? "/usr/bin/gzip" : "/usr/bin/zstd"
            let (status, tar) = try Self.run(tool, ["-dc"], input: bytes)
            #expect(status == 0)
            tars.append(tar)
            containers.append(bytes)
        }
        #expect(tars[0] == tars[1])
        #expect(containers[0] != containers[1], "the parallel encoding is not in use")
    }

    // MARK: Verification

    /// A bundle's entries written again in `encoding`, its manifest's `container.encoding` set to `name`.
    static func rewrite(
        _ source: String, to target: String, format: ContainerFormat, encoding: ContainerEncoding, name: String?
    ) throws {
        var entries = try AttachmentFixture.entries(source)
        let index = try #require(entries.firstIndex { $0.path == "manifest.json" })
        var manifest = try BundleManifest(parsing: entries[index].bytes)
        guard case .object(var container)? = manifest.body["container"] else {
            Issue.record("no container object")
            return
        }
        container["encoding"] = name.map(JSONValue.string)
        manifest.body["container"] = .object(container)
        entries[index].bytes = manifest.serialized()
        let output = try OutputFile(path: target)
        let writer = try ContainerWriter(format: format, encoding: encoding) { try output.write($0) }
        for entry in entries {
            try writer.beginEntry(path: entry.path, size: entry.bytes.count, modificationTime: manifest.entryTime)
            try writer.write(entry.bytes)
        }
        try writer.finish()
        try output.commit()
    }

    @Test(arguments: ContainerFormat.allCases)
    func verifyEncodesAgainInTheEncodingTheManifestNames(container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let small = try await VerifyTests.smallBundle(fixture, container)
        let written = try BundleManifest(
            parsing: try #require(AttachmentFixture.entries(small).first { $0.path == "manifest.json" }).bytes)
        #expect(written.containerEncodingName == "parallel")
        #expect(try BundleVerifier().verify(path: small).canonical)
        // Large enough for the encodings to differ: a README of 12 MiB, written as the manifest says (parallel).
        let path = fixture.path("large.\(container.fileExtension)")
        try BundleRewriting.rewrite(small, to: path, file: "README.txt") { $0 + Self.large(12 << 20, seed: 6) }
        #expect(try BundleVerifier().verify(path: path).canonical)

        // A bundle of before the parallel encoding: no name, written serially. It verifies, canonical.
        let old = fixture.path("old.\(container.fileExtension)")
        try Self.rewrite(path, to: old, format: container, encoding: .serial, name: nil)
        #expect(try BundleVerifier().verify(path: old).canonical)

        // Named parallel, written serially (or the other way round): the container bytes are not the canonical
        // encoding of the contents. zip deflates each entry alike in both, so its bytes cannot tell.
        for (encoding, name) in [(ContainerEncoding.serial, "parallel"), (.parallel, "serial")] {
            let mixed = fixture.path("mixed-\(name).\(container.fileExtension)")
            try Self.rewrite(path, to: mixed, format: container, encoding: encoding, name: name)
            if container == .zip {
                #expect(try BundleVerifier().verify(path: mixed).canonical)
            } else {
                let problem = #expect(throws: BundleProblem.self) { try BundleVerifier().verify(path: mixed) }
                #expect(problem?.reason.contains("it was altered") == true, "\(String(describing: problem))")
            }
        }

        // A name this version does not know: refused, naming the manifest, never passed unchecked.
        let later = fixture.path("later.\(container.fileExtension)")
        try Self.rewrite(path, to: later, format: container, encoding: .parallel, name: "turbo")
        let problem = #expect(throws: BundleProblem.self) { try BundleVerifier().verify(path: later) }
        #expect(problem?.file == "manifest.json")
        #expect(problem?.reason.contains("\"turbo\"") == true)
    }
}
