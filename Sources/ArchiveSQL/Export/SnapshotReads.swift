import Archive
import Foundation
import QueryLanguage

/// The export reads of a snapshot, on its connection: each steps one cursor in a stable order, so exports
/// run in constant memory and the same archive always gives the same sequence.
struct SnapshotReads {
    let connection: any SQLConnection

    /// Messages matching `query` (every message when `nil`), with names, in `(dialog_id, date_sent, id)`
    /// order: the order of a transcript, served by the index of messages by dialog. Without `raw`, each
    /// message's record is left empty and not read.
    ///
    /// The names come from ``MessageNames``, a batch of ``namesBatch`` messages at a time, not from joins in the
    /// statement (its conditions may still name the dialog and the users: the engine then keeps those joins).
    ///
    /// - Throws: ``QueryLanguage/QueryError`` when the query names an unknown login, or a database error.
    func forEachMessage(matching query: Query?, raw: Bool, _ body: (SearchHit) throws -> Void) throws {
        let condition = try condition(query)
        var pending: [SearchHit] = []
        pending.reserveCapacity(Self.namesBatch)
        var names = MessageNames()
        func drain() throws {
            try names.fill(&pending, on: connection)
            for hit in pending { try body(hit) }
            pending.removeAll(keepingCapacity: true)
        }
        try connection.forEach(
            """
            SELECT \(raw: raw ? Columns.message : Columns.messageWithoutRaw) FROM \(raw: Columns.hitSource) \
            WHERE \(condition) ORDER BY m.dialog_id, m.date_sent, m.id
            """
        ) { row in
            pending.append(
                SearchHit(
                    message: Columns.message(row), dialogName: nil, dialogType: nil, senderLogin: nil, senderName: nil))
            if pending.count == Self.namesBatch { try drain() }
        }
        try drain()
    }

    /// How many messages share one look-up of their names.
    static let namesBatch = 1000

    /// Earlier versions of the messages matching `query`, by message id and revision.
    func forEachRevision(matching query: Query?, _ body: (MessageRevision) throws -> Void) throws {
        let condition = try condition(query)
        try connection.forEach(
            """
            SELECT r.message_id, r.revision, r.text, r.attachments, r.custom, r.raw, r.updated_at, r.observed_at,
            r.superseded_at FROM message_revisions r JOIN messages m ON m.id = r.message_id
            LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition) ORDER BY r.message_id, r.revision
            """
        ) { row in
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
            xmpp_room_jid, data, raw, first_seen_at, last_seen_at, deleted_at, hidden_for, deleted_evidence
            """
        try forEach(table: "dialogs", columns: columns, key: "id", ids: ids?.sorted()) { row in
            try body(
                ArchivedDialog(
                    id: row[0], type: row[1], name: row[2], photo: row[3], userID: row[4], occupantIDsJSON: row[5],
                    adminIDsJSON: row[6], createdAt: row[7], updatedAt: row[8], lastMessageDateSent: row[9],
                    xmppRoomJID: row[10], dataJSON: row[11], raw: row[12], firstSeenAt: row[13], lastSeenAt: row[14],
                    deletedAt: row[15], hiddenFor: HiddenFor.decode(row[16]), deletionEvidence: row[17]))
        }
    }

    /// Users by id: all of them when `ids` is `nil`, else those listed (sorted, unknown ids skipped).
    func forEachUser(ids: [Int]?, _ body: (ArchivedUser) throws -> Void) throws {
        let columns = """
            id, login, email, full_name, phone, created_at, updated_at, last_request_at, custom_data, user_tags, raw,
            first_seen_at, last_seen_at
            """
        try forEach(table: "users", columns: columns, key: "id", ids: ids?.sorted()) { row in
            try body(
                ArchivedUser(
                    id: row[0], login: row[1], email: row[2], fullName: row[3], phone: row[4], createdAt: row[5],
                    updatedAt: row[6], lastRequestAt: row[7], customData: row[8], userTags: row[9], raw: row[10],
                    firstSeenAt: row[11], lastSeenAt: row[12]))
        }
    }

    /// Membership periods of dialogs (all when `dialogIDs` is `nil`), by dialog, join time and user.
    func forEachMembership(dialogIDs: [String]?, _ body: (MembershipPeriod) throws -> Void) throws {
        try forEach(
            table: "dialog_membership", columns: "dialog_id, user_id, joined_observed_at, left_observed_at",
            key: "dialog_id", ids: dialogIDs?.sorted(), order: "dialog_id, joined_observed_at, user_id, id"
        ) { row in
            try body(
                MembershipPeriod(dialogID: row[0], userID: row[1], joinedObservedAt: row[2], leftObservedAt: row[3]))
        }
    }

    /// The recorded files for these keys, as of the snapshot.
    func files(keys: some Collection<String>) throws -> [String: ArchivedFile] {
        guard !keys.isEmpty else { return [:] }
        return try Columns.files(keys: keys, on: connection)
    }

    private func condition(_ query: Query?) throws -> SQLFragment {
        guard let query else { return "1 = 1" }
        return try SearchCompiler.resolving(query, on: connection).compile(query.root)
    }

    /// Rows of a table in key order, all or those whose key is listed; lists are read in chunks of
    /// ``SQLFragment/listLimit`` bound values (engines cap the number of parameters).
    private func forEach(
        table: String, columns: String, key: String, ids: [some SQLBindable]?, order: String? = nil,
        _ body: (any SQLRow) throws -> Void
    ) throws {
        let order = order ?? key
        guard let ids else {
            try connection.forEach("SELECT \(raw: columns) FROM \(raw: table) ORDER BY \(raw: order)", body)
            return
        }
        // Callers pass the ids sorted, so chunks follow each other in key order.
        for chunk in SQLFragment.lists(ids) {
            try connection.forEach(
                """
                SELECT \(raw: columns) FROM \(raw: table) WHERE \(raw: key) IN (\(SQLFragment.list(chunk))) \
                ORDER BY \(raw: order)
                """, body)
        }
    }
}
