import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {

    /// Records the end of a dialog's crawl: success clears the last error, failure records it.
    ///
    /// The cursor itself only moves with ``storeMessages(_:dialogID:cursor:observedAt:indexFiles:)``.
    public func recordCrawlOutcome(dialogID: String, error: String?, at time: Int) async throws {
        try await pool.write { db in
            if let error {
                try db.execute(
                    sql: """
                        INSERT INTO crawl_state (dialog_id, last_error, last_error_at, changed_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (dialog_id) DO UPDATE SET last_error = excluded.last_error,
                            last_error_at = excluded.last_error_at, changed_at = excluded.changed_at
                        """,
                    arguments: [dialogID, error, time, time])
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO crawl_state (dialog_id, last_success_at, changed_at) VALUES (?, ?, ?)
                        ON CONFLICT (dialog_id) DO UPDATE SET last_success_at = excluded.last_success_at,
                            last_error = NULL, last_error_at = NULL, changed_at = excluded.changed_at
                        """,
                    arguments: [dialogID, time, time])
            }
        }
    }

    /// Records how many messages the server reported for a dialog at a reconcile.
    ///
    /// `qbarchive stats` compares this count with what the archive held at that time (coverage); a
    /// dialog never reconciled has no count, which is not the same as a count of zero.
    public func recordServerCount(dialogID: String, count: Int, at time: Int) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO crawl_state (dialog_id, server_count, server_counted_at, changed_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (dialog_id) DO UPDATE SET server_count = excluded.server_count,
                        server_counted_at = excluded.server_counted_at, changed_at = excluded.changed_at
                    """,
                arguments: [dialogID, count, time, time])
        }
    }

}
