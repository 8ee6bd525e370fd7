import GRDB

extension SQLiteArchive {
    /// Calls `body` with every message in `(dialog_id, date_sent, id)` order, tombstoned ones included.
    ///
    /// Rows are read through a database cursor inside one read transaction, so the export sees a
    /// consistent snapshot while crawls keep writing, and memory stays flat whatever the archive's
    /// size. The order is served by the `messages_by_dialog` index. This call blocks its thread
    /// for the whole export: run it off the Swift concurrency pool (a dedicated thread or task
    /// executor). An error thrown by `body` stops the export and is rethrown.
    public func forEachMessage(_ body: (ArchivedMessage) throws -> Void) throws {
        try withSnapshot { snapshot in
            try snapshot.forEachMessage(matching: nil) { try body($0.message) }
        }
    }

    /// Runs `body` inside one read transaction: every read of the snapshot sees the same archive,
    /// whatever crawls commit meanwhile, so the files of one export agree with each other.
    ///
    /// Blocks its thread for as long as `body` runs; exports call it from a thread of their own.
    public func withSnapshot<T>(_ body: (ArchiveSnapshot) throws -> T) throws -> T {
        try pool.read { db in try body(ArchiveSnapshot(db: db)) }
    }
}
