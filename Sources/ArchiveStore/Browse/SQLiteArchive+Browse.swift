import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Dialogs newest activity first, with message counts and occupant names, for browsing.
    ///
    /// Counts come from the `messages_by_dialog` index (one pass, no message row read).
    public func dialogSummaries(limit: Int = 100, offset: Int = 0) async throws -> [DialogSummary] {
        try await reading { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, d.type, d.name, d.occupant_ids, d.deleted_at, c.n, c.last
                    FROM dialogs d
                    LEFT JOIN (SELECT dialog_id, COUNT(*) AS n, MAX(date_sent) AS last
                               FROM messages GROUP BY dialog_id) c ON c.dialog_id = d.id
                    ORDER BY COALESCE(c.last, d.last_message_date_sent, 0) DESC, d.id
                    LIMIT ? OFFSET ?
                    """,
                arguments: [limit, offset])
            return try Self.summaries(rows, db: db)
        }
    }

    /// How many dialogs the archive holds, tombstoned ones included.
    public func dialogCount() async throws -> Int {
        try await reading { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM dialogs") ?? 0 }
    }

    /// One dialog's summary, or `nil` when the archive has no such dialog.
    public func dialogSummary(id: String) async throws -> DialogSummary? {
        try await reading { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, d.type, d.name, d.occupant_ids, d.deleted_at,
                           (SELECT COUNT(*) FROM messages WHERE dialog_id = d.id),
                           (SELECT MAX(date_sent) FROM messages WHERE dialog_id = d.id)
                    FROM dialogs d WHERE d.id = ?
                    """,
                arguments: [id])
            return try Self.summaries(rows, db: db).first
        }
    }

    /// A page of a dialog's messages in transcript order (`date_sent`, then id), with names.
    public func dialogMessages(dialogID: String, limit: Int, offset: Int) async throws -> [SearchHit] {
        try await reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.hitColumns) FROM \(Self.hitSource) WHERE m.dialog_id = ?
                    ORDER BY m.date_sent, m.id LIMIT ? OFFSET ?
                    """,
                arguments: [dialogID, limit, offset]
            ).map(Self.searchHit(row:))
        }
    }

    /// The position of a message in its dialog's transcript order (0 for the first), for paging to it.
    public func transcriptPosition(of messageID: String) async throws -> TranscriptPosition? {
        try await reading { db in
            guard
                let anchor = try Row.fetchOne(
                    db, sql: "SELECT dialog_id, date_sent FROM messages WHERE id = ?", arguments: [messageID])
            else { return nil }
            let dialogID: String = anchor[0]
            let index =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM messages WHERE dialog_id = ? AND (date_sent, id) < (?, ?)",
                    arguments: [dialogID, anchor[1] as Int, messageID]) ?? 0
            return TranscriptPosition(dialogID: dialogID, index: index)
        }
    }

    /// One message with its dialog and sender names, or `nil`.
    public func messageHit(id: String) async throws -> SearchHit? {
        try await reading { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.hitColumns) FROM \(Self.hitSource) WHERE m.id = ?", arguments: [id]
            ).map(Self.searchHit(row:))
        }
    }

    private static func summaries(_ rows: [Row], db: Database) throws -> [DialogSummary] {
        var occupantIDs: [[Int]] = []
        var everyone = Set<Int>()
        for row in rows {
            let json: String = row[3]
            let ids = (try? JSONValue(parsing: json))?.arrayValue?.compactMap(\.lenientInt) ?? []
            occupantIDs.append(ids)
            everyone.formUnion(ids)
        }
        var labels: [Int: String] = [:]
        if !everyone.isEmpty {
            let ids = Array(everyone)
            let marks = databaseQuestionMarks(count: ids.count)
            for row in try Row.fetchAll(
                db, sql: "SELECT id, full_name, login FROM users WHERE id IN (\(marks))",
                arguments: StatementArguments(ids))
            {
                let name: String? = row[1]
                let login: String? = row[2]
                labels[row[0]] = [name, login].compactMap { $0 }.first { !$0.isEmpty }
            }
        }
        return zip(rows, occupantIDs).map { row, ids in
            DialogSummary(
                id: row[0], type: row[1], name: row[2],
                occupants: ids.map { DialogSummary.Occupant(id: $0, label: labels[$0] ?? "#\($0)") },
                messages: row[5] ?? 0, lastMessageAt: row[6], deletedAt: row[4])
        }
    }
}
