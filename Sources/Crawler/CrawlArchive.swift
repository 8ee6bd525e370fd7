import QuickBlox

/// What a crawl needs from an archive: the narrow seam between the crawler and a storage backend.
///
/// The SQLite store implements it; a PostgreSQL backend would implement the same few calls. Every
/// write is atomic: a page of messages is stored together with the cursor that follows it, so a crawl
/// killed at any instant resumes from the last stored page.
public protocol CrawlArchive: Sendable {
    /// The start time of the last run that completed (the `updated_at` pass asks for changes since).
    func lastCompletedRunStart() async throws -> Int?
    /// Records a run's start; returns its id.
    func beginRun(startedAt: Int, scope: String) async throws -> Int64
    /// Records a run's end, its status and its counts.
    func finishRun(_ id: Int64, summary: CrawlSummary) async throws

    /// Stores users (insert or update), as received.
    func storeUsers(_ users: [(User, JSONValue)], observedAt: Int) async throws
    /// Stores dialogs (insert or update), recording occupant changes as membership history.
    func storeDialogs(_ dialogs: [(Dialog, JSONValue)], observedAt: Int) async throws

    /// Where a dialog's message crawl stands.
    func cursor(dialogID: String) async throws -> MessageCursor
    /// Stores one page of messages and, in the same transaction, the dialog's new cursor (when given).
    func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: MessageCursor?, observedAt: Int
    ) async throws -> StoreCounts

    /// Ids of a dialog's archived, not-deleted messages (for `--reconcile`).
    func liveMessageIDs(dialogID: String) async throws -> Set<String>
    /// Ids of the archived, not-deleted dialogs.
    func liveDialogIDs() async throws -> Set<String>
    /// Tombstones messages no longer on the server; their content stays.
    func tombstoneMessages(_ ids: [String], deletedAt: Int) async throws
    /// Tombstones a dialog no longer on the server; its messages stay.
    func tombstoneDialog(_ id: String, deletedAt: Int) async throws
}

/// What storing a page did.
public struct StoreCounts: Sendable, Hashable {
    public var new = 0
    public var edited = 0
    public var unchanged = 0

    public init(new: Int = 0, edited: Int = 0, unchanged: Int = 0) {
        self.new = new
        self.edited = edited
        self.unchanged = unchanged
    }
}
