import Archive
import ArchiveSQLite

/// A storage backend the conformance suite runs its expectations over: how to make a new archive in a test
/// folder and how to reopen it read-only. SQLite today; a PostgreSQL backend appends itself to ``all``.
package struct TestBackend: Sendable, CustomStringConvertible {
    package var name: String
    /// Creates an empty archive in `directory`, created at `now`.
    package var create: @Sendable (_ directory: String, _ now: Int) throws -> any ArchiveWriter
    /// Opens the archive made in `directory` read-only.
    package var openReader: @Sendable (_ directory: String) throws -> any ArchiveReader
    /// The backend's own consistency checks of its storage (indexes agree with rows…): the problems found.
    package var problems: @Sendable (_ archive: any ArchiveWriter) async throws -> [String]

    package var description: String { name }

    package static let sqlite = TestBackend(
        name: "SQLite",
        create: { directory, now in try SQLiteArchive.create(at: directory + "/archive.sqlite", now: now) },
        openReader: { directory in try SQLiteArchive.openReadOnly(at: directory + "/archive.sqlite") },
        problems: { archive in try await (archive as? SQLiteArchive)?.integrityProblems() ?? ["not a SQLite archive"] })

    /// Every backend the conformance suite covers.
    package static let all: [TestBackend] = [.sqlite]
}
