/// Opens archives of one storage backend by location: what the `qbarchive` command hands to the parts that
/// open archives themselves (the service), so that only the command knows which backend it chose.
public protocol ArchiveBackend: Sendable {
    /// Creates a new, empty archive at `location` (refusing one that exists) and opens it for writing.
    func create(at location: String) async throws -> any ArchiveWriter
    /// Opens an existing archive for reading and writing, applying pending migrations.
    func openWriter(at location: String) async throws -> any ArchiveWriter
    /// Opens the archive at `location` for writing, making it first when there is none (a first crawl); `created`
    /// says which.
    func openOrCreate(at location: String) async throws -> (archive: any ArchiveWriter, created: Bool)
    /// Opens an existing archive for reading only; every read stops after `statementTimeout` when given.
    func openReader(at location: String, statementTimeout: Duration?) async throws -> any ArchiveReader
}
