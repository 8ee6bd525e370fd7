import Archive
import PostgresNIO
import QuickBlox

/// The messages an erasure target selects on a PostgreSQL archive, and the id the target resolved to (a login
/// resolves to the user's id, a retention cutoff to its ISO 8601 text), as the SQLite archive resolves them.
struct ErasureSelection: Sendable {
    /// Which messages: one column compared with one bound value.
    enum Filter: Sendable {
        case message(String)
        case dialog(String)
        case sender(Int64)
        case sentBefore(Int64)
    }

    let filter: Filter
    /// The id the register and the audit entry name.
    let targetID: String

    /// One message an erasure reads before it changes it.
    struct Row: Sendable {
        var rowID: Int64
        var id: String
        var dialogID: String
        var dateSent: Int64
        var senderID: Int64?
        var recipientID: Int64?
        var attachments: String
    }

    /// How many messages one batch reads.
    static let batchSize: Int64 = 1_000

    /// Resolves `target` against what the archive holds.
    ///
    /// - Throws: ``Archive/ArchiveError/unknownTarget(_:)`` for a message, dialog or user the archive does not
    ///   hold (with SQLite's words).
    static func resolve(_ target: ErasureTarget, connection: PostgresConnection) async throws -> ErasureSelection {
        switch target {
        case .message(let id):
            guard try await connection.exists("SELECT 1 FROM messages WHERE id = \(id)") else {
                throw ArchiveError.unknownTarget("the archive holds no message with the id \(id)")
            }
            return ErasureSelection(filter: .message(id), targetID: id)
        case .dialog(let id):
            guard try await connection.exists("SELECT 1 FROM dialogs WHERE id = \(id)") else {
                throw ArchiveError.unknownTarget("the archive holds no dialog with the id \(id)")
            }
            return ErasureSelection(filter: .dialog(id), targetID: id)
        case .sentBefore(let instant, _):
            return ErasureSelection(filter: .sentBefore(Int64(instant)), targetID: ISO8601.format(instant))
        case .user(let text):
            var id = Int64(text)
            if id == nil {
                id = try await connection.ints("SELECT id FROM users WHERE login = \(text) ORDER BY id LIMIT 1")
                    .first.map(Int64.init)
            }
            guard let id,
                try await connection.exists(
                    "SELECT 1 FROM users WHERE id = \(id) UNION ALL SELECT 1 FROM messages WHERE sender_id = \(id) LIMIT 1"
                )
            else {
                throw ArchiveError.unknownTarget(
                    "the archive holds no user with the id or login \(text) (an erased user's login is a pseudonym; "
                        + "give the id)")
            }
            return ErasureSelection(filter: .sender(id), targetID: String(id))
        }
    }

    /// The next messages not yet erased after `after` in (`date_sent`, `rowid`) order, at most ``batchSize``.
    func batch(after: (dateSent: Int64, rowID: Int64), connection: PostgresConnection) async throws -> [Row] {
        let query =
            switch filter {
            case .message(let id): Self.batch("id =", id, after: after)
            case .dialog(let id): Self.batch("dialog_id =", id, after: after)
            case .sender(let id): Self.batch("sender_id =", id, after: after)
            case .sentBefore(let instant): Self.batch("date_sent <", instant, after: after)
            }
        var rows: [Row] = []
        let result = try await connection.query(query, logger: PostgresArchive.silent)
        for try await (rowID, id, dialogID, dateSent, senderID, recipientID, attachments) in result.decode(
            (Int64, String, String, Int64, Int64?, Int64?, String).self)
        {
            rows.append(
                Row(
                    rowID: rowID, id: id, dialogID: dialogID, dateSent: dateSent, senderID: senderID,
                    recipientID: recipientID, attachments: attachments))
        }
        return rows
    }

    /// The batch statement: `condition` is a column and an operator written here, never input; `value` is bound.
    private static func batch<Value: PostgresNonThrowingEncodable & Sendable>(
        _ condition: String, _ value: Value, after: (dateSent: Int64, rowID: Int64)
    ) -> PostgresQuery {
        """
        SELECT rowid, id, dialog_id, date_sent, sender_id, recipient_id, attachments FROM messages
        WHERE \(unescaped: condition) \(value) AND erased_at IS NULL
            AND (date_sent, rowid) > (\(after.dateSent), \(after.rowID))
        ORDER BY date_sent, rowid LIMIT \(batchSize)
        """
    }

    /// Whether the selection holds a message not yet erased outside `keeping`.
    func hasUnerased(keeping: Set<String>, connection: PostgresConnection) async throws -> Bool {
        var after = (dateSent: Int64.min, rowID: Int64.min)
        while true {
            let rows = try await batch(after: after, connection: connection)
            guard let last = rows.last else { return false }
            if rows.contains(where: { !keeping.contains($0.id) }) { return true }
            after = (last.dateSent, last.rowID)
        }
    }
}

extension PostgresConnection {
    /// Whether `query` returns a row.
    func exists(_ query: PostgresQuery) async throws -> Bool {
        try await changes(query) > 0
    }

    /// The first column of the first row, an integer or `NULL`; `nil` without a row too.
    func optionalInt64(_ query: PostgresQuery) async throws -> Int64? {
        for try await value in try await self.query(query, logger: PostgresArchive.silent).decode(Int64?.self) {
            return value
        }
        return nil
    }
}
