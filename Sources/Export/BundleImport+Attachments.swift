import Archive
import Foundation
import QuickBlox

extension BundleImport {
    /// Copies every attachment file of verified bundle parts into the archive's file store, streaming each
    /// through a ``ArchiveSQLite/FileStore/Writer`` (hashed as it is written, renamed into place only when
    /// whole), and checks its SHA-256 and size against the manifest once more.
    ///
    /// - Returns: each restored file's SHA-256 → the name of the bundle file it came from.
    /// - Throws: ``BundleProblem`` for a file that does not match the manifest, ``ExportError`` when the
    ///   store cannot be written.
    static func restoreAttachments(_ reports: [BundleVerifier.Report], bundles: [String], into store: FileStore)
        throws -> [String: String]
    {
        var restored: [String: String] = [:]
        for (report, bundle) in zip(reports, bundles) {
            var expected: [String: BundleManifest.File] = [:]
            for file in report.manifest.files where file.path.hasPrefix("attachments/") { expected[file.path] = file }
            guard !expected.isEmpty else { continue }
            let name = URL(fileURLWithPath: bundle).lastPathComponent
            do {
                let reader = try ContainerReader(path: bundle)
                while let entry = try reader.nextEntry() {
                    guard let file = expected[entry.path] else { continue }
                    try copy(file, from: reader, into: store)
                    restored[file.sha256] = name
                }
            } catch let error as ContainerError {
                throw BundleProblem(file: error.entry ?? bundle, reason: "cannot be read: \(error.message)")
            } catch let error as FileStoreError {
                throw ExportError.cannotWrite(path: store.root, reason: error.localizedDescription)
            }
        }
        return restored
    }

    /// Streams the current entry into the store; the copy is committed under the hash of its bytes, so a
    /// mismatch leaves nothing under the name the manifest gives.
    private static func copy(_ file: BundleManifest.File, from reader: ContainerReader, into store: FileStore) throws {
        let writer = try store.makeWriter()
        var committed = false
        defer { if !committed { writer.discard() } }
        while true {
            let chunk = try reader.read(maximum: 1 << 20)
            if chunk.isEmpty { break }
            guard chunk.withUnsafeBytes({ writer.write($0) }) else {
                throw writer.failure ?? FileStoreError.io(path: writer.temporaryPath, operation: "write", errno: EIO)
            }
        }
        let stored = try writer.commit()
        committed = true
        guard stored.sha256 == file.sha256, stored.size == file.size else {
            throw BundleProblem(file: file.path, reason: "does not match its SHA-256 in the manifest")
        }
    }

    /// What a record's `attachment_files` says of its files, for ``Archive/ArchiveWriter/importRecords(_:)``:
    /// files this import restored become `ok`; a status that explains an absence is kept; the rest (a file
    /// left out by `--no-attachments`, one not downloaded) stays to be fetched.
    static func files(of record: JSONValue, restored: [String: String]) -> [ImportedFile] {
        guard case .array(let entries)? = record["attachment_files"] else { return [] }
        var files: [ImportedFile] = []
        for entry in entries {
            guard let key = entry["key"]?.stringValue, let text = entry["status"]?.stringValue,
                let status = FileStatus(rawValue: text)
            else { continue }
            var size: Int?
            if case .int(let value)? = entry["size"] { size = value }
            switch status {
            case .ok:
                guard let sha256 = entry["sha256"]?.stringValue, let bundle = restored[sha256],
                    entry["path"]?.stringValue == FileReference.bundlePath(sha256)
                else { continue }
                files.append(
                    ImportedFile(
                        key: key, status: .ok, sha256: sha256, size: size,
                        contentType: entry["content_type"]?.stringValue,
                        source: "import of \(bundle)"))
            case .listed:
                continue
            case .tooLarge, .failed, .external, .gone:
                files.append(ImportedFile(key: key, status: status, size: status == .tooLarge ? size : nil))
            }
        }
        return files
    }
}
