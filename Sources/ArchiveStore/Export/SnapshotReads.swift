import Foundation
import GRDB
import QueryLanguage

/// A consistent, read-only view of an archive for exports: the store's streaming seam.
///
/// Every method streams rows through a database cursor in a stable order, so exports run in
/// constant memory and the same archive always gives the same sequence. Obtained from
/// ``SQLiteArchive/withSnapshot(_:)``; valid only inside that call.
struct SnapshotReads {
    let db: Database

    /// The archive's id and creation time.
    func identity() throws -> ArchiveIdentity {
        guard let row = try Row.fetchOne(db, sql: "SELECT archive_id, created_at FROM archive_meta WHERE id = 1"),
            let id = UUID(uuidString: row[0])
        else { throw ArchiveError.notAnArchive(path: db.description, reason: "archive_meta has no identity row") }
        return ArchiveIdentity(id: id, createdAt: row[1])
    }

    /// Messages matching `query` (every message when `nil`), with names, in `(dialog_id, date_sent, id)`
    /// order: the order of a transcript, served by `messages_by_dialog`.
    ///
    /// - Throws: ``QueryError`` when the query names an unknown login, or a database error.
    func forEachMessage(matching query: Query?, _ body: (SearchHit) throws -> Void) throws {
        let condition =
            try query.map { try SQLiteArchive.condition($0, db: db) }
            ?? SearchCompiler.Fragment(sql: "1", arguments: [])
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT \(SQLiteArchive.hitColumns) FROM \(SQLiteArchive.hitSource) WHERE \(condition.sql)
                ORDER BY m.dialog_id, m.date_sent, m.id
                """,
            arguments: StatementArguments(condition.arguments))
        while let row = try rows.next() { try body(SQLiteArchive.searchHit(row: row)) }
    }

    /// Earlier versions of the messages matching `query`, by message id and revision.
    func forEachRevision(matching query: Query?, _ body: (MessageRevision) throws -> Void) throws {
        let condition =
            try query.map { try SQLiteArchive.condition($0, db: db) }
            ?? SearchCompiler.Fragment(sql: "1", arguments: [])
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT r.message_id, r.revision, r.text, r.attachments, r.custom, r.raw, r.updated_at, r.observed_at,
                r.superseded_at FROM message_revisions r JOIN messages m ON m.id = r.message_id
                LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition.sql) ORDER BY r.message_id, r.revision
                """,
            arguments: StatementArguments(condition.arguments))
        while let row = try rows.next() {
            try body(
                MessageRevision(
                    messageID: row[0], revision: row[1], text: row[2], attachmentsJSON: row[3], customJSON: row[4],
                    raw: row[5], updatedAt: row[6], observedAt: row[7], supersededAt: row[8]))
        }
    }

    /// Dialogs by id: all of them when `ids` is `nil`, else those listed (sorted, unknown ids skipped).
    func forEachDialog(ids: [String]?, _ body: (ArchivedDialog) throws -> Void) throws {
        let columns = """
            id, type, name, photo, user_id, occupant_ids, admin_ids, created_at, updated_at, last_message_date_sent,
            xmpp_room_jid, data, raw, first_seen_at, last_seen_at, deleted_at
            """
        try forEach(table: "dialogs", columns: columns, key: "id", ids: ids?.sorted().map(\.databaseValue)) { row in
            try body(
                ArchivedDialog(
                    id: row[0], type: row[1], name: row[2], photo: row[3], userID: row[4], occupantIDsJSON: row[5],
                    adminIDsJSON: row[6], createdAt: row[7], updatedAt: row[8], lastMessageDateSent: row[9],
                    xmppRoomJID: row[10], dataJSON: row[11], raw: row[12], firstSeenAt: row[13], lastSeenAt: row[14],
                    deletedAt: row[15]))
        }
    }

    /// Users by id: all of them when `ids` is `nil`, else those listed (sorted, unknown ids skipped).
    func forEachUser(ids: [Int]?, _ body: (ArchivedUser) throws -> Void) throws {
        let columns = """
            id, login, email, full_name, phone, created_at, updated_at, last_request_at, custom_data, user_tags, raw,
            first_seen_at, last_seen_at
            """
        try forEach(table: "users", columns: columns, key: "id", ids: ids?.sorted().map(\.databaseValue)) { row in
            try body(
                ArchivedUser(
                    id: row[0], login: row[1], email: row[2], fullName: row[3], phone: row[4], createdAt: row[5],
                    updatedAt: row[6], lastRequestAt: row[7], customData: row[8], userTags: row[9], raw: row[10],
                    firstSeenAt: row[11], lastSeenAt: row[12]))
        }
    }

    /// Membership periods of dialogs (all when `dialogIDs` is `nil`), by dialog, join time and user.
    func forEachMembership(dialogIDs: [String]?, _ body: (MembershipPeriod) throws -> Void) throws {
        let columns = "dialog_id, user_id, joined_observed_at, left_observed_at"
        try forEach(
            table: "dialog_membership", columns: columns, key: "dialog_id",
            ids: dialogIDs?.sorted().map(\.databaseValue),
            order: "dialog_id, joined_observed_at, user_id, id"
        ) { row in
            try body(
                MembershipPeriod(dialogID: row[0], userID: row[1], joinedObservedAt: row[2], leftObservedAt: row[3]))
        }
    }

    /// Rows of a table in key order, all or those whose key is listed; lists are read in chunks of 500
    /// bound values (SQLite caps the number of parameters).
    private func forEach(
        table: String, columns: String, key: String, ids: [DatabaseValue]?, order: String? = nil,
        _ body: (Row) throws -> Void
    ) throws {
        let order = order ?? key
        guard let ids else {
            let rows = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM \(table) ORDER BY \(order)")
            while let row = try rows.next() { try body(row) }
            return
        }
        let sorted = ids  // callers pass them sorted, so chunks follow each other in key order
        var start = 0
        while start < sorted.count {
            let chunk = Array(sorted[start..<min(start + 500, sorted.count)])
            start += chunk.count
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            let rows = try Row.fetchCursor(
                db, sql: "SELECT \(columns) FROM \(table) WHERE \(key) IN (\(marks)) ORDER BY \(order)",
                arguments: StatementArguments(chunk))
            while let row = try rows.next() { try body(row) }
        }
    }
}
