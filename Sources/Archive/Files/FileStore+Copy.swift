import Foundation

extension FileStore {
    /// What ``copy(to:)`` did.
    public struct CopySummary: Sendable, Hashable {
        /// Files now in the other store that were not there before.
        public var copied = 0
        /// Their bytes.
        public var bytes = 0
        /// Files the other store already had (a repeated backup copies only what is new).
        public var present = 0

        public init() {}
    }

    /// Copies every stored file into `other` (a backup's store) that it lacks: by hard link when both are
    /// on one file system (stored files are never changed in place, only added or removed), otherwise by
    /// copying the bytes to a temporary name and renaming. Files are content-addressed, so a file already
    /// under its name in `other` is the same file and is left alone.
    public func copy(to other: FileStore) throws(FileStoreError) -> CopySummary {
        var summary = CopySummary()
        let files = FileManager.default
        for digest in allDigests() {
            let source = path(for: digest)
            let target = other.path(for: digest)
            if files.fileExists(atPath: target) {
                summary.present += 1
                continue
            }
            try other.createDirectory("\(other.root)/sha256/\(digest.prefix(2))")
            if link(source, target) != 0 {
                let failure = errno
                if failure == EEXIST {
                    summary.present += 1
                    continue
                }
                guard failure == EXDEV || failure == EPERM || failure == ENOTSUP else {
                    throw .io(path: target, operation: "link", errno: failure)
                }
                try other.createDirectory("\(other.root)/tmp")
                let temporary = "\(other.root)/tmp/\(UUID().uuidString.lowercased()).part"
                do {
                    try files.copyItem(atPath: source, toPath: temporary)
                } catch {
                    try? files.removeItem(atPath: temporary)
                    throw .io(path: temporary, operation: "copy", errno: EIO)
                }
                guard rename(temporary, target) == 0 else {
                    let failure = errno
                    unlink(temporary)
                    throw .io(path: target, operation: "rename", errno: failure)
                }
            }
            summary.copied += 1
            summary.bytes += (try? files.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        }
        return summary
    }
}
