/// A chat message as `GET /chat/Message.json` returns it.
///
/// Custom parameters sent with a message sit at the top level of the record (`"age":"25"`); they
/// are kept in ``extra``, as is any key this model does not know.
public struct Message: QuickBloxRecord {
    public static let kind = "message"

    /// The 24-hex ObjectId.
    public var id: String
    public var chatDialogID: String
    /// The text; `nil` when the server sent `null` or nothing (attachment-only messages).
    public var text: String?
    /// Unix seconds. Read from an integer, a float or a numeric string; falls back to `created_at`.
    public var dateSent: Int
    public var senderID: Int?
    /// 0 in group dialogs per the docs, `nil` where the server sent `null`.
    public var recipientID: Int?
    public var attachments: [Attachment]
    public var readIDs: [Int]
    public var deliveredIDs: [Int]
    /// Unix seconds.
    public var createdAt: Int?
    /// Unix seconds. Reading with `mark_as_read=1` bumps it too, so it does not mean "edited".
    public var updatedAt: Int?
    /// Deprecated 0/1 flag.
    public var read: Int?
    /// Custom parameters and unmodelled keys.
    public var extra: [String: JSONValue]

    public init(
        id: String, chatDialogID: String, text: String?, dateSent: Int, senderID: Int?,
        recipientID: Int?, attachments: [Attachment] = [], readIDs: [Int] = [], deliveredIDs: [Int] = [],
        createdAt: Int?, updatedAt: Int?, read: Int? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.chatDialogID = chatDialogID
        self.text = text
        self.dateSent = dateSent
        self.senderID = senderID
        self.recipientID = recipientID
        self.attachments = attachments
        self.readIDs = readIDs
        self.deliveredIDs = deliveredIDs
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.read = read
        self.extra = extra
    }

    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        var reader = try FieldReader(kind: Self.kind, json: json)
        id = try reader.requiredString("_id")
        chatDialogID = try reader.requiredString("chat_dialog_id")
        text = reader.string("message")
        createdAt = reader.timestamp("created_at")
        updatedAt = reader.timestamp("updated_at")
        guard let sent = reader.timestamp("date_sent") ?? createdAt else {
            throw QuickBloxDecodingError(kind: Self.kind, field: "date_sent", reason: "is missing and so is created_at")
        }
        dateSent = sent
        senderID = reader.int("sender_id")
        recipientID = reader.int("recipient_id")
        var decoded: [Attachment] = []
        for element in reader.value("attachments")?.arrayValue ?? [] {
            decoded.append(try Attachment(json: element))
        }
        attachments = decoded
        readIDs = reader.ints("read_ids")
        deliveredIDs = reader.ints("delivered_ids")
        read = reader.optional("read")?.lenientInt
        extra = reader.extra
    }

    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.set("_id", id)
        object.set("chat_dialog_id", chatDialogID)
        object.set("message", text)
        object.set("date_sent", dateSent)
        object.set("sender_id", senderID)
        object.set("recipient_id", recipientID)
        object.set("attachments", .array(attachments.map(\.json)))
        object.set("read_ids", ints: readIDs)
        object.set("delivered_ids", ints: deliveredIDs)
        object.set("created_at", timestamp: createdAt)
        object.set("updated_at", timestamp: updatedAt)
        object.setIfPresent("read", read)
        return object.json
    }

    /// The custom parameters: top-level keys that are not QuickBlox fields.
    /// (A known key sent as `null`, kept in ``extra`` for the round trip, is not one.)
    public var customParameters: [String: JSONValue] {
        guard extra["read"]?.isNull == true else { return extra }
        return extra.filter { $0.key != "read" }
    }
}
