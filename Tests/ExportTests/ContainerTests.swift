import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import Export

/// One entry to write: its path, bytes, time, and how its data is split across `write` calls.
private struct SampleEntry {
    var path: String
    var bytes: [UInt8]
    var modificationTime: Int
    var chunkSize: Int
}

private func sampleEntries() -> [SampleEntry] {
    var random = SeededRandom(seed: 42)
    let noise = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &random) }
    let text = Array(String(repeating: "Привет, мир — ünïcödé ✓ 日本語 🙂\n", count: 40).utf8)
    return [
        SampleEntry(
            path: "manifest.json", bytes: Array(#"{"version":1}"#.utf8), modificationTime: 1_700_000_000, chunkSize: 4),
        SampleEntry(path: "empty.txt", bytes: [], modificationTime: 1_700_000_001, chunkSize: 1),
        SampleEntry(path: "attachments/noise.bin", bytes: noise, modificationTime: 1_600_000_003, chunkSize: 70_001),
        SampleEntry(path: "transcripts/abc.txt", bytes: text, modificationTime: 946_684_799, chunkSize: 1000),
        SampleEntry(path: "transcripts/résumé 日本.txt", bytes: Array("ok\n".utf8), modificationTime: 0, chunkSize: 2),
    ]
}

/// Collects the writer's output in memory.
private final class Collector {
    var bytes: [UInt8] = []
}

private func makeContainer(
    _ format: ContainerFormat, _ entries: [SampleEntry], encoding: ContainerEncoding = .current, chunkScale: Int = 1
) throws -> [UInt8] {
    let collector = Collector()
    let writer = try ContainerWriter(format: format, encoding: encoding) { collector.bytes += $0 }
    for entry in entries {
        try writer.beginEntry(path: entry.path, size: entry.bytes.count, modificationTime: entry.modificationTime)
        let chunk = max(1, entry.chunkSize * chunkScale)
        for start in stride(from: 0, to: entry.bytes.count, by: chunk) {
            try writer.write(entry.bytes[start..<min(start + chunk, entry.bytes.count)])
        }
    }
    try writer.finish()
    return collector.bytes
}

private func readContainer(at path: String) throws(ContainerError) -> (ContainerFormat?, [(ContainerEntry, [UInt8])]) {
    let reader = try ContainerReader(path: path)
    var result: [(ContainerEntry, [UInt8])] = []
    while let entry = try reader.nextEntry() {
        var data: [UInt8] = []
        while true {
            let chunk = try reader.read(maximum: 50_000)
            if chunk.isEmpty { break }
            data += chunk
        }
        result.append((entry, data))
    }
    return (reader.format, result)
}

/// A fresh temporary directory, removed when `body` returns.
private func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("ContainerTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

private func save(_ bytes: [UInt8], in directory: URL, name: String) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

/// Runs an executable; returns its exit status and standard output.
private func run(_ executable: String, _ arguments: [String], in directory: URL? = nil) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    process.environment = ["LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

private func hasTool(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

@Suite struct ContainerTests {
    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func roundTrip(format: ContainerFormat, encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        try withTemporaryDirectory { directory in
            let url = try save(
                try makeContainer(format, entries, encoding: encoding), in: directory,
                name: "bundle.\(format.fileExtension)")
            let (detected, read) = try readContainer(at: url.path)
            #expect(detected == format)
            #expect(read.map(\.0.path) == entries.map(\.path))
            for ((entry, bytes), sample) in zip(read, entries) {
                #expect(bytes == sample.bytes, "\(sample.path)")
                #expect(entry.modificationTime == sample.modificationTime, "\(sample.path)")
                #expect(entry.size == nil || entry.size == sample.bytes.count, "\(sample.path)")
                #expect(entry.isRegularFile)
            }
        }
    }

    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func sameEntriesGiveIdenticalBytes(format: ContainerFormat, encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        let first = try makeContainer(format, entries, encoding: encoding)
        Thread.sleep(forTimeInterval: 1.1)  // a time stamp taken from the clock would now differ
        // and the data arrives in other chunks
        let second = try makeContainer(format, entries, encoding: encoding, chunkScale: 3)
        #expect(first == second)
        #expect(!first.isEmpty)
    }

    @Test(.enabled(if: hasTool("/usr/bin/tar")), arguments: ContainerEncoding.allCases)
    func tarAcceptsTarGzAndExtractsIdenticalBytes(encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        try withTemporaryDirectory { directory in
            let url = try save(
                try makeContainer(.tarGz, entries, encoding: encoding), in: directory, name: "bundle.tar.gz")
            let (listStatus, listing) = try run("/usr/bin/tar", ["-tzf", url.path])
            #expect(listStatus == 0, "\(listing)")
            #expect(listing.split(separator: "\n").map(String.init) == entries.map(\.path))
            let (verboseStatus, verbose) = try run("/usr/bin/tar", ["--numeric-owner", "-tvzf", url.path])
            #expect(verboseStatus == 0)
            for line in verbose.split(separator: "\n") {
                #expect(line.hasPrefix("-rw-r--r-- 0/0 "), "\(line)")
            }
            let target = directory.appendingPathComponent("extracted", isDirectory: true)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            let (extractStatus, extractOutput) = try run("/usr/bin/tar", ["-xzf", url.path, "-C", target.path])
            #expect(extractStatus == 0, "\(extractOutput)")
            for entry in entries {
                let extracted = try Data(contentsOf: target.appendingPathComponent(entry.path))
                #expect([UInt8](extracted) == entry.bytes, "\(entry.path)")
                let attributes = try FileManager.default.attributesOfItem(
                    atPath: target.appendingPathComponent(entry.path).path)
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
                #expect(modified == TimeInterval(entry.modificationTime), "\(entry.path)")
            }
        }
    }

    @Test(.enabled(if: hasTool("/usr/bin/zstd") && hasTool("/usr/bin/tar")), arguments: ContainerEncoding.allCases)
    func zstdAndTarAcceptTarZst(encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        try withTemporaryDirectory { directory in
            let url = try save(
                try makeContainer(.tarZst, entries, encoding: encoding), in: directory, name: "bundle.tar.zst")
            let (testStatus, testOutput) = try run("/usr/bin/zstd", ["-t", url.path])
            #expect(testStatus == 0, "\(testOutput)")
            let (listStatus, listing) = try run("/usr/bin/tar", ["--zstd", "-tf", url.path])
            #expect(listStatus == 0, "\(listing)")
            #expect(listing.split(separator: "\n").map(String.init) == entries.map(\.path))
        }
    }

    @Test(.enabled(if: hasTool("/usr/bin/unzip")))
    func unzipAcceptsZip() throws {
        let entries = sampleEntries()
        try withTemporaryDirectory { directory in
            let url = try save(try makeContainer(.zip, entries), in: directory, name: "bundle.zip")
            let (status, output) = try run("/usr/bin/unzip", ["-t", url.path])
            #expect(status == 0, "\(output)")
            #expect(output.contains("No errors detected"), "\(output)")
            let target = directory.appendingPathComponent("extracted", isDirectory: true)
            let (extractStatus, extractOutput) = try run("/usr/bin/unzip", ["-q", url.path, "-d", target.path])
            #expect(extractStatus == 0, "\(extractOutput)")
            for entry in entries {
                let extracted = try Data(contentsOf: target.appendingPathComponent(entry.path))
                #expect([UInt8](extracted) == entry.bytes, "\(entry.path)")
            }
        }
    }

    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func truncatedContainerThrows(format: ContainerFormat, encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        let bytes = try makeContainer(format, entries, encoding: encoding)
        try withTemporaryDirectory { directory in
            for fraction in [0.25, 0.5, 0.9] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                let url = try save(cut, in: directory, name: "cut-\(fraction).\(format.fileExtension)")
                #expect(throws: ContainerError.self, "cut at \(fraction)") { try readContainer(at: url.path) }
            }
        }
    }

    /// Flipped bytes in the middle: zip's CRC always catches them; gzip and zstd data libarchive writes
    /// carries no checksum it verifies, so a tar may read back altered bytes, but never the original ones
    /// without an error, and never crashes.
    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func flippedBytesAreNeverReadAsTheOriginal(format: ContainerFormat, encoding: ContainerEncoding) throws {
        let entries = sampleEntries()
        var bytes = try makeContainer(format, entries, encoding: encoding)
        for offset in [bytes.count / 2, bytes.count / 2 + 7, bytes.count / 2 + 100] { bytes[offset] ^= 0x5A }
        try withTemporaryDirectory { directory in
            let url = try save(bytes, in: directory, name: "flipped.\(format.fileExtension)")
            do throws(ContainerError) {
                let (_, read) = try readContainer(at: url.path)
                #expect(format != .zip, "zip CRC mismatch went unnoticed")
                #expect(read.map(\.1) != entries.map(\.bytes))
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }

    @Test func notAContainerThrows() throws {
        try withTemporaryDirectory { directory in
            var random = SeededRandom(seed: 7)
            let garbage = (0..<5000).map { _ in UInt8.random(in: 0...255, using: &random) }
            let url = try save(garbage, in: directory, name: "garbage.zip")
            #expect(throws: ContainerError.self) { try readContainer(at: url.path) }
            #expect(throws: ContainerError.self) {
                try readContainer(at: directory.appendingPathComponent("missing.tar.gz").path)
            }
        }
    }

    @Test(arguments: ContainerEncoding.allCases)
    func gzipHeaderHasNoTime(encoding: ContainerEncoding) throws {
        let bytes = try makeContainer(.tarGz, sampleEntries(), encoding: encoding)
        #expect(Array(bytes.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(Array(bytes[4..<8]) == [0, 0, 0, 0])
    }

    @Test func zipDatesAreUTCWhateverTheTimeZone() throws {
        // 2023-11-14 22:13:20 UTC; libarchive itself would write the host's local time.
        let entry = SampleEntry(path: "a.txt", bytes: [1, 2, 3], modificationTime: 1_700_000_000, chunkSize: 3)
        let bytes = try makeContainer(.zip, [entry])
        let time: UInt16 = 22 << 11 | 13 << 5 | 20 / 2
        let date: UInt16 = (2023 - 1980) << 9 | 11 << 5 | 14
        let expected = [UInt8(time & 0xFF), UInt8(time >> 8), UInt8(date & 0xFF), UInt8(date >> 8)]
        #expect(Array(bytes[0..<4]) == [0x50, 0x4B, 0x03, 0x04])
        #expect(Array(bytes[10..<14]) == expected)
        let central = try #require(bytes.firstRange(of: [0x50, 0x4B, 0x01, 0x02]))
        #expect(Array(bytes[central.lowerBound + 12..<central.lowerBound + 16]) == expected)
        #expect(dosDateTimeBytes(0) == [0x00, 0x00, 0x21, 0x00])  // before 1980: 1980-01-01
        #expect(dosDateTimeBytes(4_417_977_600) == [0x7D, 0xBF, 0x9F, 0xFF])  // 2110: 2107-12-31 23:59:58
    }

    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func wrongSizesThrow(format: ContainerFormat, encoding: ContainerEncoding) throws {
        let short = try ContainerWriter(format: format, encoding: encoding) { _ in }
        try short.beginEntry(path: "a.txt", size: 10, modificationTime: 0)
        try short.write(Array(repeating: 1, count: 4))
        #expect(throws: ContainerError(message: "only 4 of the declared 10 bytes were written", entry: "a.txt")) {
            try short.beginEntry(path: "b.txt", size: 1, modificationTime: 0)
        }
        #expect(throws: ContainerError.self) { try short.finish() }  // the writer stays failed

        let shortLast = try ContainerWriter(format: format, encoding: encoding) { _ in }
        try shortLast.beginEntry(path: "a.txt", size: 10, modificationTime: 0)
        #expect(throws: ContainerError.self) { try shortLast.finish() }

        let long = try ContainerWriter(format: format, encoding: encoding) { _ in }
        try long.beginEntry(path: "a.txt", size: 3, modificationTime: 0)
        try long.write([1, 2])
        let error = #expect(throws: ContainerError.self) { try long.write([3, 4]) }
        #expect(error?.entry == "a.txt")
        #expect(throws: ContainerError.self) { try long.write([3]) }
    }

    @Test func misuseThrows() throws {
        let writer = try ContainerWriter(format: .tarGz, encoding: .current) { _ in }
        #expect(throws: ContainerError.self) { try writer.write([1]) }
        for path in ["", "/etc/passwd", "../up.txt", "a//b.txt", "dir/", "a/./b", "nul\u{0}.txt"] {
            let fresh = try ContainerWriter(format: .zip, encoding: .current) { _ in }
            #expect(throws: ContainerError.self, "\(path)") {
                try fresh.beginEntry(path: path, size: 0, modificationTime: 0)
            }
        }
        let finished = try ContainerWriter(format: .zip, encoding: .current) { _ in }
        try finished.finish()
        #expect(throws: ContainerError.self) { try finished.finish() }
    }

    @Test(arguments: ContainerFormat.allCases, ContainerEncoding.allCases)
    func outputFailureBecomesContainerError(format: ContainerFormat, encoding: ContainerEncoding) throws {
        struct DiskFull: Error {}
        let writer = try ContainerWriter(format: format, encoding: encoding) { _ in throw DiskFull() }
        try writer.beginEntry(path: "a.txt", size: 3, modificationTime: 0)
        try writer.write([1, 2, 3])
        let error = #expect(throws: ContainerError.self) { try writer.finish() }
        #expect(error?.message.contains("DiskFull") == true)
    }

    @Test func libraryVersionNamesTheCompressors() {
        #expect(ContainerWriter.libraryVersion.hasPrefix("libarchive 3."))
        #expect(ContainerWriter.libraryVersion.contains("zlib/"))
        #expect(ContainerWriter.libraryVersion.contains("libzstd/"))
    }
}
