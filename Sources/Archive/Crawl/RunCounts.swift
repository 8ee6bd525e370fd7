/// The tallies of one crawl run, stored in `runs`.
public struct RunCounts: Sendable, Hashable {
    public var dialogs: Int
    public var newMessages: Int
    public var editedMessages: Int
    public var deletedMessages: Int
    /// HTTP requests made, retries included.
    public var requests: Int
    public var retries: Int
    /// Response bytes received.
    public var bytes: Int

    public init(
        dialogs: Int = 0, newMessages: Int = 0, editedMessages: Int = 0, deletedMessages: Int = 0, requests: Int = 0,
        retries: Int = 0, bytes: Int = 0
    ) {
        self.dialogs = dialogs
        self.newMessages = newMessages
        self.editedMessages = editedMessages
        self.deletedMessages = deletedMessages
        self.requests = requests
        self.retries = retries
        self.bytes = bytes
    }
}
