import Archive
import Foundation

/// The SQLite backend: archives are files, opened as ``SQLiteArchive``.
public struct SQLiteBackend: ArchiveBackend {
    /// Receives the progress of an upgrade that rebuilds an index when an older archive is opened.
    public var upgradeProgress: UpgradeObserver?

    public init(upgradeProgress: UpgradeObserver? = nil) {
        self.upgradeProgress = upgradeProgress
    }

    public func create(at location: String) async throws -> any ArchiveWriter {
        try SQLiteArchive.create(at: location)
    }

    public func openWriter(at location: String) async throws -> any ArchiveWriter {
        try SQLiteArchive.open(at: location, progress: upgradeProgress)
    }

    /// A file that is not there is created.
    public func openOrCreate(at location: String) async throws -> (archive: any ArchiveWriter, created: Bool) {
        FileManager.default.fileExists(atPath: location)
            ? (try await openWriter(at: location), false) : (try await create(at: location), true)
    }

    public func openReader(at location: String, statementTimeout: Duration?) async throws -> any ArchiveReader {
        try SQLiteArchive.openReadOnly(at: location, statementTimeout: statementTimeout, progress: upgradeProgress)
    }
}
