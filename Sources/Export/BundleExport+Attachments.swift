import Archive
import Crypto
import Foundation

extension BundleExport {
    /// The manifest entries of the stored files a bundle carries: `attachments/SHA256`, each once, by SHA-256.
    ///
    /// Every file must be in the archive's store with the size the archive records; its bytes are hashed
    /// again while the container is written (``streamAttachment(_:store:into:)``).
    /// - Throws: ``ExportError/attachmentUnavailable(sha256:reason:)`` for a file missing or of another size.
    static func attachmentFiles(_ stored: [String: Int], store: FileStore) throws(ExportError)
        -> [BundleManifest.File]
    {
        var files: [BundleManifest.File] = []
        files.reserveCapacity(stored.count)
        for (sha256, size) in stored.sorted(by: { $0.key < $1.key }) {
            let path = store.path(for: sha256)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                let actual = (attributes[.size] as? NSNumber)?.intValue
            else {
                throw .attachmentUnavailable(sha256: sha256, reason: "it is not in the file store \(store.root)")
            }
            guard actual == size else {
                throw .attachmentUnavailable(
                    sha256: sha256, reason: "the stored file has \(actual) bytes, the archive records \(size)")
            }
            files.append(BundleManifest.File(path: FileReference.bundlePath(sha256), size: size, sha256: sha256))
        }
        return files
    }

    /// Streams a stored file into the container's current entry, 1 MiB at a time, hashing it on the way:
    /// bytes that no longer match their name (damage in the store) stop the export instead of making a
    /// bundle that fails verification. Memory stays flat whatever the file's size.
    static func streamAttachment(_ file: BundleManifest.File, store: FileStore, into writer: ContainerWriter) throws {
        let path = store.path(for: file.sha256)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ExportError.attachmentUnavailable(sha256: file.sha256, reason: "it cannot be opened in \(store.root)")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        while true {
            let data: Data
            do {
                guard let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty else { break }
                data = chunk
            } catch {
                throw ExportError.attachmentUnavailable(
                    sha256: file.sha256, reason: "reading it failed: \(error.localizedDescription)")
            }
            size += data.count
            guard size <= file.size else { break }
            hasher.update(data: data)
            try writer.write(Array(data))
        }
        guard size == file.size, BundleManifest.hex(hasher.finalize()) == file.sha256 else {
            throw ExportError.attachmentUnavailable(
                sha256: file.sha256, reason: "the stored bytes no longer match their SHA-256 (damaged in the store)")
        }
    }
}
