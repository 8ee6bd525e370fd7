import QuickBlox

/// A message as the archive holds it: the server's current version plus what the archive observed.
///
/// JSON columns are kept as text so that export can copy them without parsing; ``decoded()`` gives
/// the QuickBlox model when needed.
public struct ArchivedMessage: Sendable, Hashable, Identifiable {
    /// The 24-hex ObjectId.
    public var id: String
    public var dialogID: String
    public var senderID: Int?
    public var recipientID: Int?
    /// Unix seconds, as the server sent them.
    public var dateSent: Int
    public var createdAt: Int?
    public var updatedAt: Int?
    public var text: String?
    /// JSON array of the attachments.
    public var attachmentsJSON: String
    /// JSON object of the custom parameters (top-level keys QuickBlox does not define).
    public var customJSON: String
    /// The whole record as the server last sent it: compact JSON with sorted keys.
    public var raw: String
    /// Unix seconds of the first and the latest crawl that saw the message.
    public var firstSeenAt: Int
    public var lastSeenAt: Int
    /// How many times the content changed: the number of rows in `message_revisions`.
    public var edited: Int
    /// When a reconcile found the message deleted for everyone; the content is kept.
    public var deletedAt: Int?
    /// Users for whom the message disappeared while others still see it ("delete for me").
    public var hiddenFor: [HiddenFor]
    /// The views behind ``deletedAt`` (see ``DeletionEvidence``), as stored JSON.
    public var deletionEvidence: String?

    public init(
        id: String, dialogID: String, senderID: Int?, recipientID: Int?, dateSent: Int, createdAt: Int?,
        updatedAt: Int?, text: String?, attachmentsJSON: String, customJSON: String, raw: String, firstSeenAt: Int,
        lastSeenAt: Int, edited: Int, deletedAt: Int?, hiddenFor: [HiddenFor] = [], deletionEvidence: String? = nil
    ) {
        self.id = id
        self.dialogID = dialogID
        self.senderID = senderID
        self.recipientID = recipientID
        self.dateSent = dateSent
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.text = text
        self.attachmentsJSON = attachmentsJSON
        self.customJSON = customJSON
        self.raw = raw
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.edited = edited
        self.deletedAt = deletedAt
        self.hiddenFor = hiddenFor
        self.deletionEvidence = deletionEvidence
    }

    /// The QuickBlox model of ``raw``.
    public func decoded() throws -> Message {
        try Message(json: JSONValue(parsing: raw))
    }
}
