import Archive
import PostgresNIO

extension PostgresArchive {
    /// Marks messages as deleted for everyone, keeping their content and words (moderators must still find
    /// them); already tombstoned or unknown ids are skipped. Returns how many were newly tombstoned.
    @discardableResult
    public func tombstoneMessages(ids: [String], evidence: DeletionEvidence?, at time: Int) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        let ids = ids.map(SQLiteText.cut)
        return try await changes(
            """
            UPDATE messages SET deleted_at = \(Int64(time)), deleted_evidence = \(evidence?.json)
            WHERE id = ANY(\(ids)) AND deleted_at IS NULL
            RETURNING rowid
            """)
    }

    /// Marks a dialog as deleted for everyone, keeping it, its messages and its history, and closes its open
    /// membership periods at `time` (nobody can see a deleted dialog), in one transaction.
    ///
    /// - Returns: Whether the dialog was newly tombstoned (`false` when unknown or already deleted).
    @discardableResult
    public func tombstoneDialog(id: String, evidence: DeletionEvidence?, at time: Int) async throws -> Bool {
        let id = SQLiteText.cut(id)
        return try await transaction { connection in
            let changed = try await connection.changes(
                """
                UPDATE dialogs SET deleted_at = \(Int64(time)), deleted_evidence = \(evidence?.json)
                WHERE id = \(id) AND deleted_at IS NULL
                RETURNING id
                """)
            guard changed > 0 else { return false }
            try await Self.recordMembership(dialogID: id, occupants: [], time: time, connection: connection)
            return true
        }
    }
}
