import Archive
import ArchiveSQL
import PostgresNIO

extension PostgresArchive {
    /// Every statistics roll-up recomputed from the messages (``StatsRollup/rebuild(_:writingShares:)``, its share
    /// statements), under the refresh's lock; then the tables settled as after any bulk change.
    public func rebuildStatistics() async throws -> Int {
        let dialogs = try await sql.write { try StatsRollup.rebuild($0) }
        try await settleAfterBulkChange()
        return dialogs
    }

    /// Vacuums and analyzes the tables a bulk change left unsettled, as autovacuum would some time later, now.
    ///
    /// Rows a crawl or an import just wrote are on pages not yet marked all-visible, so every read checks each
    /// row's visibility, and the planner plans from figures of the archive before the load (or none). Measured
    /// here on 100,000 messages just crawled, 8 moderators searching while a crawl writes: 74 searches a second,
    /// 81 after `ANALYZE` alone, 158 after `VACUUM`; and 91 against 187 with this at the end of the crawl
    /// (docs/performance.md).
    ///
    /// Unsettled: more than a tenth of a table's pages (plus one) not all-visible as of its last vacuum — a table
    /// that grew, or was never vacuumed. Read from the table's size, which is exact, not from the statistics
    /// system's change counts, which reach it up to seconds late. `VACUUM (ANALYZE, SKIP_LOCKED)`: it skips the
    /// pages already all-visible, and a table another session is vacuuming (a second worker ending its run) is
    /// left to it. Best effort: it changes no answer, only how fast one comes, so a failure (a role that does
    /// not own the tables) is logged, never thrown.
    ///
    /// First it brings the statistics roll-ups up to date (``StatsRollup``), which the vacuum then covers too.
    public func settleAfterBulkChange() async throws {
        try await sql.write { try StatsRollup.refresh($0) }
        do {
            // Table names from the catalogue, quoted by the server: nothing of ours reaches the statement.
            var unsettled: [String] = []
            let rows = try await client.query(
                """
                SELECT quote_ident(c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind = 'r'
                  AND pg_relation_size(c.oid) / current_setting('block_size')::int > 1.1 * c.relallvisible + 1
                ORDER BY c.relname
                """, logger: Self.silent)
            for try await name in rows.decode(String.self) { unsettled.append(name) }
            guard !unsettled.isEmpty else { return }
            try await client.query(
                PostgresQuery(unsafeSQL: "VACUUM (ANALYZE, SKIP_LOCKED) " + unsettled.joined(separator: ", ")),
                logger: Self.silent)
        } catch {
            logger.warning("tables not vacuumed after a bulk change: \(String(reflecting: error))")
        }
    }
}
