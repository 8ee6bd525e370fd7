import Archive
import QuickBlox

extension SQLArchiveReading {
    /// Dialogs newest activity first, with message counts and occupant names, for browsing.
    ///
    /// Counts come from the index of messages by dialog (one pass, no message row read).
    public func dialogSummaries(limit: Int, offset: Int) async throws -> [DialogSummary] {
        try await sql.read { connection in
            let rows = try connection.fetchAll(
                """
                SELECT d.id, d.type, d.name, d.occupant_ids, d.deleted_at, c.n, c.last, d.hidden_for
                FROM dialogs d
                LEFT JOIN (SELECT dialog_id, COUNT(*) AS n, MAX(date_sent) AS last
                           FROM messages GROUP BY dialog_id) c ON c.dialog_id = d.id
                ORDER BY COALESCE(c.last, d.last_message_date_sent, 0) DESC, d.id
                LIMIT \(limit) OFFSET \(offset)
                """, SummaryRow.init)
            return try Self.summaries(rows, on: connection)
        }
    }

    public func dialogCount() async throws -> Int {
        try await sql.read { connection in try connection.fetchInt("SELECT COUNT(*) FROM dialogs") ?? 0 }
    }

    public func dialogSummary(id: String) async throws -> DialogSummary? {
        try await sql.read { connection in
            let rows = try connection.fetchAll(
                """
                SELECT d.id, d.type, d.name, d.occupant_ids, d.deleted_at,
                       (SELECT COUNT(*) FROM messages WHERE dialog_id = d.id),
                       (SELECT MAX(date_sent) FROM messages WHERE dialog_id = d.id), d.hidden_for
                FROM dialogs d WHERE d.id = \(id)
                """, SummaryRow.init)
            return try Self.summaries(rows, on: connection).first
        }
    }

    public func dialogMessages(dialogID: String, limit: Int, offset: Int) async throws -> [SearchHit] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT \(raw: Columns.hit) FROM \(raw: Columns.hitSource) WHERE m.dialog_id = \(dialogID)
                ORDER BY m.date_sent, m.id LIMIT \(limit) OFFSET \(offset)
                """, Columns.hit)
        }
    }

    public func transcriptPosition(of messageID: String) async throws -> TranscriptPosition? {
        try await sql.read { connection in
            guard
                let (dialogID, dateSent) = try connection.fetchOne(
                    "SELECT dialog_id, date_sent FROM messages WHERE id = \(messageID)",
                    { ($0[0] as String, $0[1] as Int) })
            else { return nil }
            let index =
                try connection.fetchInt(
                    """
                    SELECT COUNT(*) FROM messages WHERE dialog_id = \(dialogID) AND (date_sent, id) < (\(dateSent), \
                    \(messageID))
                    """) ?? 0
            return TranscriptPosition(dialogID: dialogID, index: index)
        }
    }

    public func messageHit(id: String) async throws -> SearchHit? {
        try await sql.read { connection in
            try connection.fetchOne(
                "SELECT \(raw: Columns.hit) FROM \(raw: Columns.hitSource) WHERE m.id = \(id)", Columns.hit)
        }
    }
}

/// A dialog row before its occupants are named.
struct SummaryRow: Sendable {
    var id: String
    var type: Int
    var name: String?
    var occupantIDs: [Int]
    var deletedAt: Int?
    var messages: Int?
    var last: Int?
    var hiddenFor: [HiddenFor]

    init(_ row: any SQLRow) {
        id = row[0]
        type = row[1]
        name = row[2]
        let json: String = row[3]
        occupantIDs = (try? JSONValue(parsing: json))?.arrayValue?.compactMap(\.lenientInt) ?? []
        deletedAt = row[4]
        messages = row[5]
        last = row[6]
        hiddenFor = HiddenFor.decode(row[7])
    }
}

extension SQLArchiveReading {
    /// The summaries of dialog rows, with their occupants' names (full name, else login, else `#id`).
    static func summaries(_ rows: [SummaryRow], on connection: any SQLConnection) throws -> [DialogSummary] {
        let everyone = Set(rows.flatMap(\.occupantIDs))
        var labels: [Int: String] = [:]
        if !everyone.isEmpty {
            for (id, name, login) in try connection.fetchAll(
                "SELECT id, full_name, login FROM users WHERE id IN (\(SQLFragment.list(Array(everyone))))",
                { ($0[0] as Int, $0[1] as String?, $0[2] as String?) })
            {
                labels[id] = [name, login].compactMap { $0 }.first { !$0.isEmpty }
            }
        }
        return rows.map { row in
            DialogSummary(
                id: row.id, type: row.type, name: row.name,
                occupants: row.occupantIDs.map { DialogSummary.Occupant(id: $0, label: labels[$0] ?? "#\($0)") },
                messages: row.messages ?? 0, lastMessageAt: row.last, deletedAt: row.deletedAt,
                hiddenFor: row.hiddenFor)
        }
    }
}
