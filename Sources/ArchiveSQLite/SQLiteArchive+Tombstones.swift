import Archive
import GRDB

extension SQLiteArchive {
    /// Marks messages as deleted for everyone, keeping their content and index entries.
    ///
    /// A reconcile calls this for ids no view that could show them still lists (``DeletionEvidence``).
    /// The rows, revisions and full-text entries stay: moderators must still find deleted messages. A
    /// message that reappears in a later page loses its tombstone. Already tombstoned or unknown ids are
    /// skipped.
    ///
    /// - Returns: How many messages were newly tombstoned.
    @discardableResult
    public func tombstoneMessages(ids: [String], evidence: DeletionEvidence?, at time: Int) async throws -> Int {
        try await pool.write { db in
            let statement = try db.cachedStatement(
                sql: "UPDATE messages SET deleted_at = ?, deleted_evidence = ? WHERE id = ? AND deleted_at IS NULL")
            let dialog = try db.cachedStatement(sql: "SELECT dialog_id FROM messages WHERE id = ?")
            var count = 0
            var dialogs: Set<String> = []
            for id in ids {
                try statement.execute(arguments: [time, evidence?.json, id])
                guard db.changesCount > 0 else { continue }
                count += 1
                if let dialogID = try String.fetchOne(dialog, arguments: [id]) { dialogs.insert(dialogID) }
            }
            try Self.markStale(dialogs, db: db)
            return count
        }
    }

    /// Marks a dialog as deleted for everyone, keeping it, its messages and its history.
    ///
    /// Open membership periods are closed at `time`: nobody can see a deleted dialog. Messages
    /// are not tombstoned here; the reconcile decides about them.
    ///
    /// - Returns: Whether the dialog was newly tombstoned (`false` when unknown or already deleted).
    @discardableResult
    public func tombstoneDialog(id: String, evidence: DeletionEvidence?, at time: Int) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE dialogs SET deleted_at = ?, deleted_evidence = ? WHERE id = ? AND deleted_at IS NULL",
                arguments: [time, evidence?.json, id])
            guard db.changesCount > 0 else { return false }
            try Self.recordMembership(dialogID: id, occupants: [], time: time, db: db)
            return true
        }
    }

    /// Records messages hidden for one user: a `message_hides` row each, and the message's `hidden_for`
    /// JSON rewritten from those rows in the same transaction.
    @discardableResult
    public func recordHidden(messageIDs: [String], for user: Int, at time: Int) async throws -> Int {
        try await pool.write { db in
            let insert = try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO message_hides (message_id, user_id, observed_at)
                    SELECT id, ?, ? FROM messages WHERE id = ? AND deleted_at IS NULL
                    """)
            var count = 0
            for id in messageIDs {
                try insert.execute(arguments: [user, time, id])
                guard db.changesCount > 0 else { continue }
                count += 1
                try Self.rewriteHiddenFor(table: "messages", hides: "message_hides", key: "message_id", id: id, db: db)
            }
            return count
        }
    }

    public func forgetHidden(messageIDs: [String], for user: Int) async throws {
        try await pool.write { db in
            let delete = try db.cachedStatement(sql: "DELETE FROM message_hides WHERE message_id = ? AND user_id = ?")
            for id in messageIDs {
                try delete.execute(arguments: [id, user])
                if db.changesCount > 0 {
                    try Self.rewriteHiddenFor(
                        table: "messages", hides: "message_hides", key: "message_id", id: id, db: db)
                }
            }
        }
    }

    @discardableResult
    public func recordDialogHidden(id: String, for user: Int, at time: Int) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO dialog_hides (dialog_id, user_id, observed_at)
                    SELECT id, ?, ? FROM dialogs WHERE id = ? AND deleted_at IS NULL
                    """, arguments: [user, time, id])
            guard db.changesCount > 0 else { return false }
            try Self.rewriteHiddenFor(table: "dialogs", hides: "dialog_hides", key: "dialog_id", id: id, db: db)
            return true
        }
    }

    public func forgetDialogHides(id: String, recordedAt time: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM dialog_hides WHERE dialog_id = ? AND observed_at = ?", arguments: [id, time])
            let withdrawn = db.changesCount
            if withdrawn > 0 {
                try Self.rewriteHiddenFor(table: "dialogs", hides: "dialog_hides", key: "dialog_id", id: id, db: db)
            }
            return withdrawn
        }
    }

    /// Sets a row's `hidden_for` from its hide rows (the table and column names are constants).
    private static func rewriteHiddenFor(table: String, hides: String, key: String, id: String, db: Database) throws {
        let hidden = try Row.fetchAll(
            db, sql: "SELECT user_id, observed_at FROM \(hides) WHERE \(key) = ?", arguments: [id]
        ).map { HiddenFor(user: $0[0], since: $0[1]) }
        try db.execute(
            sql: "UPDATE \(table) SET hidden_for = ? WHERE id = ?", arguments: [HiddenFor.encode(hidden), id])
    }
}
