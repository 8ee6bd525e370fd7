import Dispatch
import Foundation

/// What re-hashing an archive's file store found.
public struct FileStoreReport: Sendable, Hashable, Codable {
    /// Stored files the archive records, checked.
    public var checked = 0
    public var bytes = 0
    /// Recorded as stored, not in the store.
    public var missing: [String] = []
    /// Present, but their bytes hash to something else (or their size differs from the record).
    public var corrupt: [String] = []
    /// Files in the store the archive does not record (an interrupted run's last file, or strays).
    public var unreferenced: [String] = []

    public init() {}

    public var isIntact: Bool { missing.isEmpty && corrupt.isEmpty }
}

extension ArchiveReader {
    /// Re-hashes every file the archive records as stored, and lists files the store holds unrecorded.
    ///
    /// Hashing runs on a Dispatch thread, not Swift's cooperative pool: it reads every byte from disk.
    /// - Parameter progress: called after each file with (checked, total).
    public func verifyFileStore(progress: @escaping @Sendable (Int, Int) -> Void = { _, _ in }) async throws
        -> FileStoreReport
    {
        let recorded = try await storedFiles()
        let store = fileStore
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var report = FileStoreReport()
                for (index, file) in recorded.enumerated() {
                    switch store.verify(file.sha256) {
                    case .ok(let size):
                        if size == file.size { report.bytes += size } else { report.corrupt.append(file.sha256) }
                    case .missing: report.missing.append(file.sha256)
                    case .corrupt, .unreadable: report.corrupt.append(file.sha256)
                    }
                    report.checked += 1
                    progress(index + 1, recorded.count)
                }
                let known = Set(recorded.map(\.sha256))
                report.unreferenced = store.allDigests().filter { !known.contains($0) }
                continuation.resume(returning: report)
            }
        }
    }
}

extension FileStore {
    /// Every SHA-256 the store holds a file for, from its directory names.
    public func allDigests() -> [String] {
        let base = "\(root)/sha256"
        var found: [String] = []
        let manager = FileManager.default
        for prefix in ((try? manager.contentsOfDirectory(atPath: base)) ?? []).sorted() where prefix.utf8.count == 2 {
            for rest in ((try? manager.contentsOfDirectory(atPath: "\(base)/\(prefix)")) ?? []).sorted() {
                let digest = prefix + rest
                if Self.isDigest(digest) { found.append(digest) }
            }
        }
        return found
    }
}
