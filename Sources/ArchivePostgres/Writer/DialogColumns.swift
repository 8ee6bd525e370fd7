import PostgresNIO
import QuickBlox

/// The columns of a `dialogs` row, as the SQLite archive stores them, and the statements that write them.
struct DialogColumns {
    let type: Int
    let name: String?
    let photo: String?
    let userID: Int?
    let occupantIDs: String
    let adminIDs: String?
    let createdAt: Int?
    let updatedAt: Int?
    let lastMessageDateSent: Int?
    let xmppRoomJID: String?
    let data: String?
    let raw: String

    init(_ dialog: Dialog, raw: String) {
        type = dialog.type.rawValue
        name = SQLiteText.cut(dialog.name)
        photo = SQLiteText.cut(dialog.photo)
        userID = dialog.userID
        occupantIDs = JSONValue.array(dialog.occupantIDs.map(JSONValue.int)).jsonString
        adminIDs = dialog.adminIDs.map { JSONValue.array($0.map(JSONValue.int)).jsonString }
        createdAt = dialog.createdAt
        updatedAt = dialog.updatedAt
        lastMessageDateSent = dialog.lastMessageDateSent
        xmppRoomJID = SQLiteText.cut(dialog.xmppRoomJID)
        data = dialog.data?.jsonString
        self.raw = raw
    }

    /// A new dialog, first and last seen at `time`.
    func insert(id: String, time: Int) -> PostgresQuery {
        let time = Int64(time)
        return """
            INSERT INTO dialogs (id, type, name, photo, user_id, occupant_ids, admin_ids, created_at, updated_at,
                last_message_date_sent, xmpp_room_jid, data, raw, first_seen_at, last_seen_at)
            VALUES (\(id), \(type), \(name), \(photo), \(userID), \(occupantIDs), \(adminIDs), \(createdAt),
                \(updatedAt), \(lastMessageDateSent), \(xmppRoomJID), \(data), \(raw), \(time), \(time))
            """
    }

    /// An archived dialog rewritten; an erased one keeps its name, photo, data and raw.
    func update(id: String, time: Int) -> PostgresQuery {
        """
        UPDATE dialogs SET type = \(type),
            name = CASE WHEN erased_at IS NULL THEN \(name) ELSE name END,
            photo = CASE WHEN erased_at IS NULL THEN \(photo) ELSE photo END,
            user_id = \(userID), occupant_ids = \(occupantIDs), admin_ids = \(adminIDs),
            created_at = \(createdAt), updated_at = \(updatedAt), last_message_date_sent = \(lastMessageDateSent),
            xmpp_room_jid = \(xmppRoomJID),
            data = CASE WHEN erased_at IS NULL THEN \(data) ELSE data END,
            raw = CASE WHEN erased_at IS NULL THEN \(raw) ELSE raw END,
            last_seen_at = \(Int64(time)), deleted_at = NULL
        WHERE id = \(id)
        """
    }
}
