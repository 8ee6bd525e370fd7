/// An earlier version of an edited message, kept in `message_revisions`.
public struct MessageRevision: Sendable, Hashable {
    public var messageID: String
    /// 1 for the first version archived, then 2, ...; the current version is `edited + 1`.
    public var revision: Int
    public var text: String?
    public var attachmentsJSON: String
    public var customJSON: String
    /// The record as the server sent it while this version was current.
    public var raw: String
    /// The server's `updated_at` of this version.
    public var updatedAt: Int?
    /// When the archive first saw this version (unix seconds).
    public var observedAt: Int
    /// When the archive saw the next version instead (unix seconds).
    public var supersededAt: Int

    public init(
        messageID: String, revision: Int, text: String?, attachmentsJSON: String, customJSON: String, raw: String,
        updatedAt: Int?, observedAt: Int, supersededAt: Int
    ) {
        self.messageID = messageID
        self.revision = revision
        self.text = text
        self.attachmentsJSON = attachmentsJSON
        self.customJSON = customJSON
        self.raw = raw
        self.updatedAt = updatedAt
        self.observedAt = observedAt
        self.supersededAt = supersededAt
    }
}
