/// A message that matched a search, with the names a moderator reads instead of ids.
public struct SearchHit: Sendable, Hashable {
    public var message: ArchivedMessage
    /// The dialog's name (`nil` for private dialogs, which have none) and type (1 public, 2 group, 3 private).
    public var dialogName: String?
    public var dialogType: Int?
    /// The sender's login and full name, when the archive has the user.
    public var senderLogin: String?
    public var senderName: String?
    /// The recipient's login and full name (private messages), when the archive has the user.
    public var recipientLogin: String?
    public var recipientName: String?

    public init(
        message: ArchivedMessage, dialogName: String?, dialogType: Int?, senderLogin: String?, senderName: String?,
        recipientLogin: String? = nil, recipientName: String? = nil
    ) {
        self.message = message
        self.dialogName = dialogName
        self.dialogType = dialogType
        self.senderLogin = senderLogin
        self.senderName = senderName
        self.recipientLogin = recipientLogin
        self.recipientName = recipientName
    }

    /// The sender as a person reads it: full name, else login, else `user N`.
    public var senderLabel: String {
        senderName ?? senderLogin ?? message.senderID.map { "user \($0)" } ?? "unknown sender"
    }
}
