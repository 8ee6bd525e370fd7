import Archive

/// The SQLite backend: archives are files, opened as ``SQLiteArchive``.
public struct SQLiteBackend: ArchiveBackend {
    /// Receives the progress of an upgrade that rebuilds an index when an older archive is opened.
    public var upgradeProgress: UpgradeObserver?

    public init(upgradeProgress: UpgradeObserver? = nil) {
        self.upgradeProgress = upgradeProgress
    }

    public func create(at location: String) throws -> any ArchiveWriter {
        try SQLiteArchive.create(at: location)
    }

    public func openWriter(at location: String) throws -> any ArchiveWriter {
        try SQLiteArchive.open(at: location, progress: upgradeProgress)
    }

    public func openReader(at location: String, statementTimeout: Duration?) throws -> any ArchiveReader {
        try SQLiteArchive.openReadOnly(at: location, statementTimeout: statementTimeout, progress: upgradeProgress)
    }
}
