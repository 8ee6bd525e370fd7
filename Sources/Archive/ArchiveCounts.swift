/// Row counts for `qbarchive status` and the tests.
public struct ArchiveCounts: Sendable, Hashable {
    public var users: Int
    public var dialogs: Int
    /// Dialogs with a tombstone (included in ``dialogs``).
    public var deletedDialogs: Int
    public var messages: Int
    /// Messages with a tombstone (included in ``messages``).
    public var deletedMessages: Int
    /// Earlier versions of edited messages.
    public var revisions: Int
    public var runs: Int

    public init(
        users: Int, dialogs: Int, deletedDialogs: Int, messages: Int, deletedMessages: Int, revisions: Int, runs: Int
    ) {
        self.users = users
        self.dialogs = dialogs
        self.deletedDialogs = deletedDialogs
        self.messages = messages
        self.deletedMessages = deletedMessages
        self.revisions = revisions
        self.runs = runs
    }
}
