import Archive
import PostgresNIO

extension PostgresArchive {
    /// Records the end of a dialog's crawl: success clears the last error, failure records it. The cursor itself
    /// only moves with ``storeMessages(_:dialogID:cursor:observedAt:indexFiles:)``.
    public func recordCrawlOutcome(dialogID: String, error: String?, at time: Int) async throws {
        let dialogID = SQLiteText.cut(dialogID)
        let time = Int64(time)
        if let error = SQLiteText.cut(error) {
            try await changes(
                """
                INSERT INTO crawl_state (dialog_id, last_error, last_error_at, changed_at)
                VALUES (\(dialogID), \(error), \(time), \(time))
                ON CONFLICT (dialog_id) DO UPDATE SET last_error = excluded.last_error,
                    last_error_at = excluded.last_error_at, changed_at = excluded.changed_at
                """)
        } else {
            try await changes(
                """
                INSERT INTO crawl_state (dialog_id, last_success_at, changed_at) VALUES (\(dialogID), \(time), \(time))
                ON CONFLICT (dialog_id) DO UPDATE SET last_success_at = excluded.last_success_at,
                    last_error = NULL, last_error_at = NULL, changed_at = excluded.changed_at
                """)
        }
    }

    /// Records how many messages the server reported for a dialog at a reconcile (`stats`' coverage).
    public func recordServerCount(dialogID: String, count: Int, at time: Int) async throws {
        let time = Int64(time)
        try await self.changes(
            """
            INSERT INTO crawl_state (dialog_id, server_count, server_counted_at, changed_at)
            VALUES (\(SQLiteText.cut(dialogID)), \(count), \(time), \(time))
            ON CONFLICT (dialog_id) DO UPDATE SET server_count = excluded.server_count,
                server_counted_at = excluded.server_counted_at, changed_at = excluded.changed_at
            """)
    }
}
