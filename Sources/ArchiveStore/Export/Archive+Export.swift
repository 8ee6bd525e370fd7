import GRDB

extension Archive {
    /// Calls `body` with every message in `(dialog_id, date_sent, id)` order, tombstoned ones included.
    ///
    /// Rows are read through a database cursor inside one read transaction, so the export sees a
    /// consistent snapshot while crawls keep writing, and memory stays flat whatever the archive's
    /// size. The order is served by the `messages_by_dialog` index. This call blocks its thread
    /// for the whole export: run it off the Swift concurrency pool (a dedicated thread or task
    /// executor). An error thrown by `body` stops the export and is rethrown.
    public func forEachMessage(_ body: (ArchivedMessage) throws -> Void) throws {
        try pool.read { db in
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(Self.messageColumns) FROM messages m ORDER BY m.dialog_id, m.date_sent, m.id")
            while let row = try rows.next() {
                try body(Self.archivedMessage(row: row))
            }
        }
    }
}
