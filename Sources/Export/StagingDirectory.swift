import Archive
import Crypto
import Foundation

/// A private directory beside an export's output where bundle files are written before the container.
///
/// Beside the output (not in /tmp) so that staging and output share a file system and its free space is
/// what the user chose. Removed when the export ends, whether it succeeded or not. One export uses it, from
/// one task at a time (its snapshot's body): hence `@unchecked Sendable`.
final class StagingDirectory: @unchecked Sendable {
    let path: String
    let budget: ByteBudget?

    init(beside output: String, budget: ByteBudget? = nil) throws(ExportError) {
        self.budget = budget
        let directory = URL(fileURLWithPath: output).deletingLastPathComponent().path
        let path = directory + "/.qbarchive-staging-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        do {
            try PrivateFiles.createDirectory(atPath: path + "/transcripts")
        } catch {
            throw ExportError.cannotWrite(path: directory, reason: error.localizedDescription)
        }
        self.path = path
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Opens a staged file for writing (`name` may be `transcripts/ID.txt`).
    func create(_ name: String) throws(ExportError) -> StagedFile {
        StagedFile(name: name, file: try OutputFile(path: path + "/" + name, budget: budget))
    }

    /// Writes a whole small staged file.
    func write(_ name: String, _ text: String, records: Int?) throws(ExportError) -> BundleManifest.File {
        let file = try create(name)
        try file.write(Array(text.utf8))
        return try file.finish(records: records)
    }

    /// Streams a staged file's bytes in chunks of 1 MiB.
    func read(_ name: String, _ body: ([UInt8]) throws(ContainerError) -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path + "/" + name) else {
            throw ExportError.cannotRead(path: path + "/" + name, reason: "the staged file is missing")
        }
        defer { try? handle.close() }
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty {
            try body(Array(data))
        }
    }
}

/// A file being staged: its bytes, size, SHA-256 and records for the manifest.
final class StagedFile {
    let name: String
    private let file: OutputFile
    var records = 0

    init(name: String, file: OutputFile) {
        self.name = name
        self.file = file
    }

    func write(_ bytes: [UInt8]) throws(ExportError) {
        try file.write(bytes)
    }

    /// Appends one record and a newline, counting it.
    func append(record bytes: [UInt8]) throws(ExportError) {
        try file.write(bytes)
        try file.write(CollectionOfOne(UInt8(10)))
        records += 1
    }

    func finish(records: Int?) throws(ExportError) -> BundleManifest.File {
        let digest = try file.commit()
        return BundleManifest.File(path: name, size: file.size, sha256: digest, records: records)
    }
}
