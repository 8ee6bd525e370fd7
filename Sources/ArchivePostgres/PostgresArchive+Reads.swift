import Archive
import ArchiveSQL

extension PostgresArchive {
    /// About how many messages the archive holds, in constant time: the largest `rowid` (rows are never
    /// deleted; a rolled-back insert leaves a gap, so it may be a little high).
    public func messageCountEstimate() async throws -> Int {
        try await sql.read { connection in try connection.fetchInt("SELECT MAX(rowid) FROM messages") ?? 0 }
    }

    /// A value that changes whenever archived data may have, read in constant time (the largest keys, the
    /// latest run and the latest erasure), as the SQLite archive's: for caches of derived figures.
    public func changeMarker() async throws -> String {
        try await sql.read { connection in
            let marker = try connection.fetchOne(
                """
                SELECT (SELECT MAX(rowid) FROM messages), (SELECT MAX(id) FROM message_revisions),
                       (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM dialogs),
                       (SELECT id || ':' || status || ':' || COALESCE(CAST(ended_at AS text), '') FROM runs
                        ORDER BY id DESC LIMIT 1),
                       (SELECT MAX(id) FROM erasures)
                """
            ) { row in (0..<6).map { row.text($0) ?? "-" }.joined(separator: "/") }
            return marker ?? "-"
        }
    }

    /// The database's size on the server, in bytes (`pg_database_size`).
    public func storageBytes() async throws -> Int? {
        try await sql.read { connection in try connection.fetchInt("SELECT pg_database_size(current_database())") }
    }

    /// A PostgreSQL archive is backed up with PostgreSQL's tools (`pg_dump`, base backups and WAL archiving:
    /// docs/postgres.md), which copy it consistently while crawls write.
    public func backup(to target: String, replace: Bool) async throws -> ArchiveBackup {
        throw ArchiveError.unsupported(
            "qbarchive backup copies SQLite archives; back up a PostgreSQL archive with pg_dump or pg_basebackup "
                + "(docs/postgres.md)")
    }
}
