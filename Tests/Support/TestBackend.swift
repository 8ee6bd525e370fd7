import Archive
import ArchivePostgres
import ArchiveSQLite
import Foundation

/// A storage backend the conformance suite runs its expectations over: how to make a new archive in a test
/// folder and how to reopen it read-only: SQLite, and PostgreSQL in a throwaway cluster
/// (``PostgresCluster/processWide``) unless `QB_SKIP_PG=1` says to leave it out.
package struct TestBackend: Sendable, CustomStringConvertible {
    package var name: String
    /// Creates an empty archive in `directory`, created at `now`.
    package var create: @Sendable (_ directory: String, _ now: Int) async throws -> any ArchiveWriter
    /// Opens the archive made in `directory` read-only.
    package var openReader: @Sendable (_ directory: String) async throws -> any ArchiveReader
    /// The backend's own consistency checks of its storage (indexes agree with rows…): the problems found.
    package var problems: @Sendable (_ archive: any ArchiveWriter) async throws -> [String]

    package var description: String { name }

    package static let sqlite = TestBackend(
        name: "SQLite",
        create: { directory, now in try SQLiteArchive.create(at: directory + "/archive.sqlite", now: now) },
        openReader: { directory in try SQLiteArchive.openReadOnly(at: directory + "/archive.sqlite") },
        problems: { archive in try await (archive as? SQLiteArchive)?.integrityProblems() ?? ["not a SQLite archive"] })

    /// A new database in the test process's cluster; the test folder keeps its URL (`postgres-url`) for
    /// ``openReader``, and the archive's files go beside it.
    package static let postgres = TestBackend(
        name: "PostgreSQL",
        create: { directory, now in
            let url = try await PostgresCluster.processWideDatabase()
            try url.write(toFile: directory + "/postgres-url", atomically: true, encoding: .utf8)
            return try await PostgresArchive.open(
                PostgresLocation(parsing: url), files: FileStore(archivePath: directory + "/archive"), now: now)
        },
        openReader: { directory in
            let url = try String(contentsOfFile: directory + "/postgres-url", encoding: .utf8)
            return try await PostgresArchive.open(
                PostgresLocation(parsing: url), files: FileStore(archivePath: directory + "/archive"))
        },
        problems: { archive in try await archive.integrityProblems() })

    /// Every backend the conformance suite covers: PostgreSQL is left out only when `QB_SKIP_PG=1`.
    package static let all: [TestBackend] = PostgresCluster.isEnabled ? [.sqlite, .postgres] : [.sqlite]
}
