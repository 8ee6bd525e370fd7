import Archive
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Erases again what the erasure register names, for records that came back since (an import of a bundle
    /// made before an erasure), as on SQLite: each register target with something to erase again gets a new
    /// erasure (register entry and audit entry, reason "re-applied: …"); retention entries skip `keeping` (the
    /// messages legal holds keep). Earlier versions of messages already erased are removed too. Then the old
    /// rows are purged as after any erasure.
    ///
    /// - Returns: how many messages were erased again.
    public func reapplyErasures(keeping: Set<String>, at time: Int) async throws -> Int {
        let (count, unreferenced) = try await transaction { connection in
            try await Self.lockForErasure(connection)
            let identity = try await Self.archiveID(connection)
            var entries: [(kind: String, id: String)] = []
            let rows = try await connection.query(
                "SELECT target_kind, target_id FROM erasures GROUP BY 1, 2 ORDER BY MIN(id)", logger: Self.silent)
            for try await (kind, id) in rows.decode((String, String).self) { entries.append((kind, id)) }
            var result = (0, [String]())
            for entry in entries {
                let target: ErasureTarget
                switch entry.kind {
                case "user": target = .user(entry.id)
                case "dialog": target = .dialog(id: entry.id)
                case "message": target = .message(id: entry.id)
                case "retention":
                    guard let instant = ISO8601.parse(entry.id) else { continue }
                    target = .sentBefore(instant, keeping: keeping)
                default: continue
                }
                // A target the archive no longer knows selects nothing.
                guard let selection = try? await ErasureSelection.resolve(target, connection: connection),
                    try await selection.hasUnerased(
                        keeping: target.kind == "retention" ? keeping : [], connection: connection)
                else { continue }
                let outcome = try await Self.erase(
                    connection, target, reason: "re-applied: records of an earlier erasure came back (import)",
                    at: time, identity: identity)
                result.0 += outcome.report.messages
                result.1 += outcome.unreferenced
            }
            let revisions = try await connection.changes(
                """
                DELETE FROM message_revisions
                WHERE message_id IN (SELECT id FROM messages WHERE erased_at IS NOT NULL) RETURNING 1
                """)
            if revisions > 0 {
                _ = try await Self.insertRegister(
                    kind: "revisions", id: "erased messages",
                    reason: "re-applied: earlier versions of erased messages came back", messages: 0,
                    revisions: revisions, files: 0, at: time, connection: connection)
            }
            // As on SQLite: attachment rows an import brought back for messages that stayed erased go, with
            // their stored files.
            if !entries.isEmpty {
                var keys: Set<String> = []
                let rows = try await connection.query("SELECT key FROM attachment_files", logger: Self.silent)
                for try await key in rows.decode(String.self) { keys.insert(key) }
                result.1 += try await AttachmentKeys.forgetUnreferenced(keys, connection: connection)
            }
            try await Self.forgetErasedLastMessages(connection)
            return result
        }
        removeFiles(unreferenced)
        try await purgeErased()
        return count
    }

    /// Completes erasures whose old rows PostgreSQL may still keep: `VACUUM` of the tables an erasure rewrites
    /// removes the dead row versions (the text before the erasure) and their entries in every index, the word
    /// and trigram GIN indexes included, so the space is reused; then the register's entries are marked
    /// `purged_at`. Idempotent; an erasure cut short between its transaction and this step is completed by the
    /// next `erase`, `retain` or crawl. Returns whether there was anything to purge.
    ///
    /// The same `VACUUM` analyzes the tables again: PostgreSQL's planner statistics keep samples of column
    /// values (logins, e-mail addresses, phone numbers, names, texts, raw records — a small table's whole
    /// column), readable through `pg_stats` by anyone who may read the table, until the next `ANALYZE`; an
    /// erasure of one person among hundreds changes too few rows for autovacuum to analyze again. A fresh sample
    /// holds only what the rows hold now. `pg_statistic` is then vacuumed too, so the replaced samples' space is
    /// reused (a database owner may; otherwise PostgreSQL skips it with a warning).
    ///
    /// What `VACUUM` does not do, and SQLite's `VACUUM` with `secure_delete` does: overwrite the freed bytes. They
    /// stay in the table's free space until reused, in the write-ahead log until it is recycled, and in base
    /// backups and replicas' history (docs/postgres.md says what to do about it). `VACUUM` cannot run inside a
    /// transaction; one purge runs at a time (an advisory lock), others wait for it and find nothing left.
    @discardableResult
    public func purgeErased() async throws -> Bool {
        try await client.withConnection { connection in
            let key = Self.purgeLockKey
            try await connection.run("SELECT pg_advisory_lock(\(key))")
            do {
                let pending = try await connection.exists("SELECT 1 FROM erasures WHERE purged_at IS NULL LIMIT 1")
                if pending {
                    for table in [
                        "messages", "message_words", "message_revisions", "users", "dialogs", "attachment_files",
                    ] {
                        try await connection.run("VACUUM (ANALYZE) \(unescaped: table)")
                    }
                    try await connection.run("VACUUM pg_catalog.pg_statistic")
                    try await connection.run(
                        "UPDATE erasures SET purged_at = \(Int64(ArchiveTime.now())) WHERE purged_at IS NULL")
                }
                try await connection.run("SELECT pg_advisory_unlock(\(key))")
                return pending
            } catch {
                _ = try? await connection.run("SELECT pg_advisory_unlock(\(key))")
                throw error
            }
        }
    }

    /// The advisory lock key of ``purgeErased()``: "qbpurge" in ASCII; the crawl lock and migrations use others.
    static let purgeLockKey: Int64 = 0x71_6270_7572_6765
}
