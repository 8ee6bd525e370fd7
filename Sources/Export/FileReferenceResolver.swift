import Archive
import Crypto
import QuickBlox

/// Finds the files exported attachments name, and keeps count of them for the manifest.
///
/// One resolver serves one export, inside its snapshot: every message's and revision's attachments go
/// through ``resolve(keys:files:)`` with the records the snapshot read for their batch, and each stored file
/// is remembered once, by SHA-256.
struct FileReferenceResolver {
    let carriage: FileReference.Carriage
    /// Every stored file referenced so far: SHA-256 → size.
    private(set) var stored: [String: Int] = [:]
    /// Every distinct attachment key referenced so far, by the status of its file.
    private(set) var keysByStatus: [FileStatus: Int] = [:]
    /// The keys met so far, each as the first 16 bytes of its SHA-256: as strings they took about 90 bytes a
    /// key, 30 MiB of an export of 5M messages (320,000 keys; docs/performance.md), and a digest takes a fifth
    /// of that. Two keys would have to share 128 bits of SHA-256 to be counted as one.
    private var seenKeys = Set<KeyDigest>()

    init(carriage: FileReference.Carriage) {
        self.carriage = carriage
    }

    /// The files of a message's or revision's attachments, given by their keys (its batch's
    /// ``Archive/ExportBatch/attachmentKeys``: in attachment order, each key once; attachments that name no
    /// file, a location, have none), as `files` (the snapshot's records of its batch's keys) says of them.
    mutating func resolve(keys: [String], files: [String: ArchivedFile]) -> [FileReference] {
        keys.map { key in
            let reference = Self.reference(key: key, file: files[key], carriage: carriage)
            if seenKeys.insert(KeyDigest(key)).inserted { keysByStatus[reference.status, default: 0] += 1 }
            if let sha256 = reference.sha256, reference.status == .ok { stored[sha256] = reference.size ?? 0 }
            return reference
        }
    }

    /// A key's identity in ``seenKeys``.
    struct KeyDigest: Hashable {
        let high: UInt64
        let low: UInt64

        init(_ key: String) {
            let digest = SHA256.hash(data: Array(key.utf8))
            (high, low) = digest.withUnsafeBytes { bytes in
                (bytes.loadUnaligned(as: UInt64.self), bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
        }
    }

    /// The reference a file record makes; a record claiming a stored file without a valid SHA-256 and size
    /// counts as not downloaded (it cannot name a path).
    static func reference(key: String, file: ArchivedFile?, carriage: FileReference.Carriage) -> FileReference {
        guard let file else { return FileReference(key: key, status: .listed) }
        switch file.status {
        case .ok:
            guard let sha256 = file.sha256, FileStore.isDigest(sha256), let size = file.size else {
                return FileReference(key: key, status: .listed)
            }
            return FileReference(
                key: key, status: .ok, sha256: sha256, size: size, contentType: file.contentType,
                path: carriage == .bundled ? FileReference.bundlePath(sha256) : nil)
        case .tooLarge:
            return FileReference(key: key, status: .tooLarge, size: file.size)
        case .listed, .failed, .external, .gone:
            return FileReference(key: key, status: file.status)
        }
    }

    /// The manifest's `attachments` object: whether the files are in the bundle, how many distinct stored
    /// files (and bytes) the exported messages and revisions reference, and their keys by status.
    var manifestEntry: JSONValue {
        .object([
            "included": .bool(carriage == .bundled), "files": .int(stored.count),
            "bytes": .int(stored.values.reduce(0, +)),
            "keys": .object(
                Dictionary(uniqueKeysWithValues: keysByStatus.map { ($0.key.rawValue, JSONValue.int($0.value)) })),
        ])
    }
}
