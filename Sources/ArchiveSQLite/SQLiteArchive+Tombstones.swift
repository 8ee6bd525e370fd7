import GRDB

extension SQLiteArchive {
    /// Marks messages as deleted on the server, keeping their content and index entries.
    ///
    /// A reconcile calls this for ids the archive has and the server no longer lists. The rows,
    /// revisions and full-text entries stay: moderators must still find deleted messages. A message
    /// that reappears in a later page loses its tombstone. Already tombstoned or unknown ids are
    /// skipped.
    ///
    /// - Returns: How many messages were newly tombstoned.
    @discardableResult
    public func tombstoneMessages(ids: [String], at time: Int) async throws -> Int {
        try await pool.write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE messages SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL")
            var count = 0
            for id in ids {
                try statement.execute(arguments: [time, id])
                count += db.changesCount
            }
            return count
        }
    }

    /// Marks a dialog as gone from the server, keeping it, its messages and its history.
    ///
    /// Open membership periods are closed at `time`: nobody can see a deleted dialog. Messages
    /// are not tombstoned here; the reconcile decides about them.
    ///
    /// - Returns: Whether the dialog was newly tombstoned (`false` when unknown or already deleted).
    @discardableResult
    public func tombstoneDialog(id: String, at time: Int) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE dialogs SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL", arguments: [time, id])
            guard db.changesCount > 0 else { return false }
            try Self.recordMembership(dialogID: id, occupants: [], time: time, db: db)
            return true
        }
    }
}
