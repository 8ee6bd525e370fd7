/// A chat dialog as `GET /chat/Dialog.json` returns it.
public struct Dialog: QuickBloxRecord {
    public static let kind = "dialog"

    /// The 24-hex ObjectId.
    public var id: String
    public var type: DialogType
    public var name: String?
    public var photo: String?
    /// The owner.
    public var userID: Int?
    /// Empty for public dialogs.
    public var occupantIDs: [Int]
    public var adminIDs: [Int]?
    /// Unix seconds.
    public var createdAt: Int?
    /// Unix seconds.
    public var updatedAt: Int?
    public var lastMessage: String?
    /// Unix seconds (not milliseconds).
    public var lastMessageDateSent: Int?
    public var lastMessageID: String?
    public var lastMessageUserID: Int?
    /// For the user the request was made as; `null` in old API versions.
    public var unreadMessagesCount: Int?
    /// `null` for private dialogs.
    public var xmppRoomJID: String?
    /// Custom-Objects data: `{"class_name": ..., field: value}`.
    public var data: JSONValue?
    /// Unmodelled keys (`is_join_required`, newer API fields, ...).
    public var extra: [String: JSONValue]

    public init(
        id: String, type: DialogType, name: String?, photo: String? = nil, userID: Int?, occupantIDs: [Int],
        adminIDs: [Int]? = nil, createdAt: Int?, updatedAt: Int?, lastMessage: String? = nil,
        lastMessageDateSent: Int? = nil, lastMessageID: String? = nil, lastMessageUserID: Int? = nil,
        unreadMessagesCount: Int? = 0, xmppRoomJID: String? = nil, data: JSONValue? = nil,
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.photo = photo
        self.userID = userID
        self.occupantIDs = occupantIDs
        self.adminIDs = adminIDs
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastMessage = lastMessage
        self.lastMessageDateSent = lastMessageDateSent
        self.lastMessageID = lastMessageID
        self.lastMessageUserID = lastMessageUserID
        self.unreadMessagesCount = unreadMessagesCount
        self.xmppRoomJID = xmppRoomJID
        self.data = data
        self.extra = extra
    }

    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        var reader = try FieldReader(kind: Self.kind, json: json)
        id = try reader.requiredString("_id")
        type = DialogType(rawValue: try reader.requiredInt("type"))
        name = reader.string("name")
        photo = reader.string("photo")
        userID = reader.int("user_id")
        occupantIDs = reader.ints("occupants_ids")
        adminIDs = reader.value("admin_ids").map(\.lenientIntArray)
        createdAt = reader.timestamp("created_at")
        updatedAt = reader.timestamp("updated_at")
        lastMessage = reader.string("last_message")
        lastMessageDateSent = reader.timestamp("last_message_date_sent")
        lastMessageID = reader.string("last_message_id")
        lastMessageUserID = reader.int("last_message_user_id")
        unreadMessagesCount = reader.int("unread_messages_count")
        xmppRoomJID = reader.string("xmpp_room_jid")
        data = reader.value("data")
        extra = reader.extra
    }

    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.set("_id", id)
        object.set("type", type.rawValue)
        object.set("name", name)
        object.set("photo", photo)
        object.set("user_id", userID)
        object.set("occupants_ids", ints: occupantIDs)
        if let adminIDs { object.set("admin_ids", ints: adminIDs) }
        object.set("created_at", timestamp: createdAt)
        object.set("updated_at", timestamp: updatedAt)
        object.set("last_message", lastMessage)
        object.set("last_message_date_sent", lastMessageDateSent)
        object.set("last_message_id", lastMessageID)
        object.set("last_message_user_id", lastMessageUserID)
        object.set("unread_messages_count", unreadMessagesCount)
        object.set("xmpp_room_jid", xmppRoomJID)
        if let data { object.set("data", data) }
        return object.json
    }
}
