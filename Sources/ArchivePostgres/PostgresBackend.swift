import Archive

/// The PostgreSQL backend: an archive is a database named by a `postgresql://` URL (``PostgresLocation``),
/// opened as ``PostgresArchive``. Opening an empty database makes the archive in it, so creating and opening
/// are the same act; a database holding other tables is refused.
public struct PostgresBackend: ArchiveBackend {
    /// Where attachment files go (PostgreSQL holds their records, a directory their bytes); `nil`: the
    /// default of ``PostgresArchive/open(_:files:statementTimeout:readOnly:maximumConnections:logger:now:)``.
    public var files: FileStore?
    /// The most connections each archive this backend opens may hold at once (its pool's maximum); `nil`:
    /// postgres-nio's default (20). `qbarchive serve --pool-size` sets it for the service's reads.
    public var maximumConnections: Int?

    public init(files: FileStore? = nil, maximumConnections: Int? = nil) {
        self.files = files
        self.maximumConnections = maximumConnections
    }

    /// Refuses a database that already holds an archive; makes the archive in an empty one.
    public func create(at location: String) async throws -> any ArchiveWriter {
        let (archive, created) = try await openOrCreate(at: location)
        guard created else {
            await (archive as? PostgresArchive)?.close()
            throw ArchiveError.alreadyExists(path: try PostgresLocation(parsing: location).description)
        }
        return archive
    }

    public func openWriter(at location: String) async throws -> any ArchiveWriter {
        try await PostgresArchive.open(
            PostgresLocation(parsing: location), files: files, maximumConnections: maximumConnections)
    }

    /// `created` is true when this open applied the first migration.
    public func openOrCreate(at location: String) async throws -> (archive: any ArchiveWriter, created: Bool) {
        let archive = try await PostgresArchive.open(
            PostgresLocation(parsing: location), files: files, maximumConnections: maximumConnections)
        return (archive, archive.migratedOnOpen.first == PostgresSchema.migrator.names.first)
    }

    /// Creates and migrates nothing (reads run in read-only transactions): a database without a complete
    /// archive is refused, as a missing or older SQLite file is.
    public func openReader(at location: String, statementTimeout: Duration?) async throws -> any ArchiveReader {
        try await PostgresArchive.open(
            PostgresLocation(parsing: location), files: files, statementTimeout: statementTimeout, readOnly: true,
            maximumConnections: maximumConnections)
    }
}
