import Archive
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Archives a page of dialogs as received, and records occupant changes as membership history.
    ///
    /// A dialog seen for the first time opens a membership period for each occupant; later, an
    /// occupant who appears opens one and an occupant who is gone closes theirs. Times are
    /// observation times (QuickBlox keeps no occupant history). Public dialogs list no occupants,
    /// so they have no membership rows. A dialog seen again loses its tombstone.
    ///
    /// - Parameters:
    ///   - items: The decoded dialogs with the raw JSON each came from.
    ///   - time: The observation time.
    public func storeDialogs(_ items: [(Dialog, JSONValue)], observedAt time: Int) async throws -> UpsertCounts {
        return try await pool.write { [items] db in
            var counts = UpsertCounts()
            for (received, record) in items {
                let (dialog, faceless) = try Self.withoutErasedFace(received, raw: record, db: db)
                let raw = try Self.withoutErasedLastMessage(dialog, raw: faceless, db: db).jsonString
                let stored = try String.fetchOne(
                    db.cachedStatement(sql: "SELECT raw FROM dialogs WHERE id = ?"), arguments: [dialog.id])
                if stored == nil {
                    try Self.insertDialog(dialog, raw: raw, time: time, db: db)
                    counts.new += 1
                } else if stored != raw {
                    try Self.updateDialog(dialog, raw: raw, time: time, db: db)
                    counts.changed += 1
                } else {
                    try db.cachedStatement(sql: "UPDATE dialogs SET last_seen_at = ?, deleted_at = NULL WHERE id = ?")
                        .execute(arguments: [time, dialog.id])
                    counts.unchanged += 1
                }
                try Self.recordMembership(dialogID: dialog.id, occupants: Set(dialog.occupantIDs), time: time, db: db)
            }
            return counts
        }
    }

    /// A private dialog with an erased occupant without its name and photo (the erasure cleared them: in most
    /// apps they are the other person's name and picture), as the server keeps sending them.
    private static func withoutErasedFace(_ dialog: Dialog, raw: JSONValue, db: Database) throws -> (Dialog, JSONValue)
    {
        try PrivateDialogFace.cleared(dialog, record: raw) { occupant in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM users WHERE id = ? AND erased_at IS NOT NULL"),
                arguments: [occupant]) ?? false
        }
    }

    /// The dialog's record without its copy of the last message when that message is erased or its sender is
    /// (``forgetErasedLastMessages(_:)`` does the same at erasure time): the server keeps repeating it.
    private static func withoutErasedLastMessage(_ dialog: Dialog, raw: JSONValue, db: Database) throws -> JSONValue {
        guard dialog.lastMessage != nil, case .object(var members) = raw else { return raw }
        var erased = false
        if let id = dialog.lastMessageID {
            erased =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM messages WHERE id = ? AND erased_at IS NOT NULL"),
                    arguments: [id]) ?? false
        }
        if !erased, let user = dialog.lastMessageUserID {
            erased =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM users WHERE id = ? AND erased_at IS NOT NULL"),
                    arguments: [user]) ?? false
        }
        guard erased else { return raw }
        members["last_message"] = .null
        return .object(members)
    }

    private static func dialogArguments(_ dialog: Dialog, raw: String) -> StatementArguments {
        [
            dialog.type.rawValue, dialog.name, dialog.photo, dialog.userID,
            JSONValue.array(dialog.occupantIDs.map(JSONValue.int)).jsonString,
            dialog.adminIDs.map { JSONValue.array($0.map(JSONValue.int)).jsonString },
            dialog.createdAt, dialog.updatedAt, dialog.lastMessageDateSent, dialog.xmppRoomJID,
            dialog.data?.jsonString, raw,
        ]
    }

    private static func insertDialog(_ dialog: Dialog, raw: String, time: Int, db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO dialogs (id, type, name, photo, user_id, occupant_ids, admin_ids, created_at, updated_at,
                    last_message_date_sent, xmpp_room_jid, data, raw, first_seen_at, last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        try statement.execute(arguments: [dialog.id] + dialogArguments(dialog, raw: raw) + [time, time])
    }

    /// An erased dialog keeps its pseudonym and loses no occupant history: name, photo, data and raw stay
    /// as the erasure left them.
    private static func updateDialog(_ dialog: Dialog, raw: String, time: Int, db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                UPDATE dialogs SET type = ?, name = IIF(erased_at IS NULL, ?, name),
                    photo = IIF(erased_at IS NULL, ?, photo), user_id = ?, occupant_ids = ?, admin_ids = ?,
                    created_at = ?, updated_at = ?, last_message_date_sent = ?, xmpp_room_jid = ?,
                    data = IIF(erased_at IS NULL, ?, data), raw = IIF(erased_at IS NULL, ?, raw),
                    last_seen_at = ?, deleted_at = NULL
                WHERE id = ?
                """)
        try statement.execute(arguments: dialogArguments(dialog, raw: raw) + [time, dialog.id])
    }

    /// Opens periods for new occupants and closes those of occupants who are gone.
    static func recordMembership(dialogID: String, occupants: Set<Int>, time: Int, db: Database) throws {
        let open = try Set(
            Int.fetchAll(
                db.cachedStatement(
                    sql: "SELECT user_id FROM dialog_membership WHERE dialog_id = ? AND left_observed_at IS NULL"),
                arguments: [dialogID]))
        let join = try db.cachedStatement(
            sql: "INSERT INTO dialog_membership (dialog_id, user_id, joined_observed_at) VALUES (?, ?, ?)")
        for userID in occupants.subtracting(open).sorted() {
            try join.execute(arguments: [dialogID, userID, time])
        }
        let leave = try db.cachedStatement(
            sql: """
                UPDATE dialog_membership SET left_observed_at = ?
                WHERE dialog_id = ? AND user_id = ? AND left_observed_at IS NULL
                """)
        for userID in open.subtracting(occupants).sorted() {
            try leave.execute(arguments: [time, dialogID, userID])
        }
    }
}
