/// The SQLite backend: archives are files, opened as ``SQLiteArchive``.
public struct SQLiteBackend: ArchiveBackend {
    public init() {}

    public func create(at location: String) throws -> any ArchiveWriter {
        try SQLiteArchive.create(at: location)
    }

    public func openWriter(at location: String) throws -> any ArchiveWriter {
        try SQLiteArchive.open(at: location)
    }

    public func openReader(at location: String, statementTimeout: Duration?) throws -> any ArchiveReader {
        try SQLiteArchive.openReadOnly(at: location, statementTimeout: statementTimeout)
    }
}
