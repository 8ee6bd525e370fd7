import Archive
import PostgresNIO

extension PostgresArchive {
    /// Records messages hidden for one user: a `message_hides` row each (a tombstoned or unknown message is not
    /// touched), and the message's `hidden_for` JSON rewritten from those rows, in one transaction. Returns how
    /// many were newly recorded.
    @discardableResult
    public func recordHidden(messageIDs: [String], for user: Int, at time: Int) async throws -> Int {
        guard !messageIDs.isEmpty else { return 0 }
        return try await transaction { connection in
            var recorded = 0
            for id in messageIDs.map(SQLiteText.cut) {
                let inserted = try await connection.changes(
                    """
                    INSERT INTO message_hides (message_id, user_id, observed_at)
                    SELECT id, \(user), \(Int64(time)) FROM messages WHERE id = \(id) AND deleted_at IS NULL
                    ON CONFLICT DO NOTHING
                    RETURNING message_id
                    """)
                guard inserted > 0 else { continue }
                recorded += 1
                try await Self.rewriteHiddenFor(.messages, id: id, connection: connection)
            }
            return recorded
        }
    }

    /// Removes hide records for messages `user`'s view lists again, rewriting their `hidden_for`.
    public func forgetHidden(messageIDs: [String], for user: Int) async throws {
        guard !messageIDs.isEmpty else { return }
        try await transaction { connection in
            for id in messageIDs.map(SQLiteText.cut) {
                let deleted = try await connection.changes(
                    """
                    DELETE FROM message_hides WHERE message_id = \(id) AND user_id = \(user) RETURNING message_id
                    """)
                if deleted > 0 { try await Self.rewriteHiddenFor(.messages, id: id, connection: connection) }
            }
        }
    }

    /// Records that a dialog left `user`'s dialog list while it is not deleted for everyone; `false` when already
    /// recorded (or the dialog is unknown or tombstoned).
    @discardableResult
    public func recordDialogHidden(id: String, for user: Int, at time: Int) async throws -> Bool {
        let id = SQLiteText.cut(id)
        return try await transaction { connection in
            let inserted = try await connection.changes(
                """
                INSERT INTO dialog_hides (dialog_id, user_id, observed_at)
                SELECT id, \(user), \(Int64(time)) FROM dialogs WHERE id = \(id) AND deleted_at IS NULL
                ON CONFLICT DO NOTHING
                RETURNING dialog_id
                """)
            guard inserted > 0 else { return false }
            try await Self.rewriteHiddenFor(.dialogs, id: id, connection: connection)
            return true
        }
    }

    /// Withdraws the hides of a dialog recorded at `time`, rewriting its `hidden_for`; returns how many.
    public func forgetDialogHides(id: String, recordedAt time: Int) async throws -> Int {
        let id = SQLiteText.cut(id)
        return try await transaction { connection in
            let withdrawn = try await connection.changes(
                """
                DELETE FROM dialog_hides WHERE dialog_id = \(id) AND observed_at = \(Int64(time)) RETURNING dialog_id
                """)
            if withdrawn > 0 { try await Self.rewriteHiddenFor(.dialogs, id: id, connection: connection) }
            return withdrawn
        }
    }

    /// The tables with a `hidden_for` column, and the table of their hide rows.
    private enum Hidden: String {
        case messages
        case dialogs

        var hides: String { self == .messages ? "message_hides" : "dialog_hides" }
        var key: String { self == .messages ? "message_id" : "dialog_id" }
    }

    /// Sets a row's `hidden_for` (``HiddenFor/encode(_:)``) from its hide rows.
    private static func rewriteHiddenFor(_ table: Hidden, id: String, connection: PostgresConnection) async throws {
        var hidden: [HiddenFor] = []
        let rows = try await connection.query(
            "SELECT user_id, observed_at FROM \(unescaped: table.hides) WHERE \(unescaped: table.key) = \(id)",
            logger: Self.silent)
        for try await (user, since) in rows.decode((Int, Int).self) {
            hidden.append(HiddenFor(user: user, since: since))
        }
        try await connection.run(
            "UPDATE \(unescaped: table.rawValue) SET hidden_for = \(HiddenFor.encode(hidden)) WHERE id = \(id)")
    }
}
