import ArchiveStore
import QuickBlox

/// What a crawl needs from an archive: the narrow seam between the crawler and a storage backend.
///
/// The SQLite store implements it; a PostgreSQL backend would implement the same few calls. Every
/// write is atomic: a page of messages is stored together with the cursor that follows it, so a crawl
/// killed at any instant resumes from the last stored page.
public protocol CrawlArchive: Sendable {
    /// The start time of the last full run that completed (the `updated_at` pass asks for changes since);
    /// targeted runs (`--where`) do not count.
    func lastCompletedRunStart() async throws -> Int?
    /// Records a run's start, with the `--where` query of a targeted run; returns its id.
    func beginRun(startedAt: Int, scope: String, query: String?) async throws -> Int64
    /// Records a run's end, its status and its counts.
    func finishRun(_ id: Int64, summary: CrawlSummary) async throws

    /// Stores users (insert or update), as received.
    func storeUsers(_ users: [(User, JSONValue)], observedAt: Int) async throws
    /// Stores dialogs (insert or update), recording occupant changes as membership history.
    func storeDialogs(_ dialogs: [(Dialog, JSONValue)], observedAt: Int) async throws

    /// Where a dialog's message crawl stands.
    func cursor(dialogID: String) async throws -> CrawlCursor
    /// Stores one page of messages and, in the same transaction, the dialog's new cursor (when given) and
    /// the files their attachments name (unless `indexFiles` is false: `--attachments none`).
    func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: CrawlCursor?, observedAt: Int, indexFiles: Bool
    ) async throws -> PageCounts

    /// Before a run's pages are stored: `indexing` false records that the file index falls behind;
    /// true first catches up with what earlier runs without it stored.
    func prepareFileIndex(indexing: Bool) async throws
    /// Listed files not yet stored or gone, after row `after`, in the order they were listed.
    func filesToFetch(after: Int64, limit: Int) async throws -> [(id: Int64, file: ArchivedFile)]
    /// Records what fetching a file came to.
    func recordFetch(key: String, outcome: FetchOutcome) async throws
    /// A writer for one new file of the file store.
    func makeFileWriter() throws -> FileStore.Writer
    /// Removes what a killed run left half-written in the file store (only one crawl runs at a time).
    func removePartialFiles()

    /// Ids of a dialog's archived, not-deleted messages (for `--reconcile`).
    func liveMessageIDs(dialogID: String) async throws -> Set<String>
    /// Ids of the archived, not-deleted dialogs.
    func liveDialogIDs() async throws -> Set<String>
    /// Records the message count the server reported for a dialog at a reconcile (for coverage in `stats`).
    func recordServerCount(dialogID: String, count: Int, countedAt: Int) async throws
    /// Tombstones messages no longer on the server; their content stays.
    func tombstoneMessages(_ ids: [String], deletedAt: Int) async throws
    /// Tombstones a dialog no longer on the server; its messages stay.
    func tombstoneDialog(_ id: String, deletedAt: Int) async throws
}
