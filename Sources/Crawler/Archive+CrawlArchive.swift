import ArchiveStore
import QuickBlox

/// The SQLite archive as the crawler's storage backend.
extension SQLiteArchive: CrawlArchive {
    public func beginRun(startedAt: Int, scope: String, query: String?) async throws -> Int64 {
        try await beginRun(scope: scope, query: query, at: startedAt)
    }

    public func finishRun(_ id: Int64, summary: CrawlSummary) async throws {
        let status: RunStatus =
            switch summary.status {
            case .complete: .complete
            case .partial: .partial
            case .failed: .failed
            case .interrupted: .interrupted
            }
        let counts = RunCounts(
            dialogs: summary.dialogs, newMessages: summary.messagesNew, editedMessages: summary.messagesEdited,
            deletedMessages: summary.messagesDeleted, requests: summary.requests, retries: summary.retries,
            bytes: summary.bytes)
        try await finishRun(
            id, status: status, counts: counts, error: summary.error, at: summary.finishedAt ?? SQLiteArchive.now())
    }

    public func storeUsers(_ users: [(User, JSONValue)], observedAt: Int) async throws {
        _ = try await upsertUsers(rawItems: users.map(\.1), at: observedAt)
    }

    public func storeDialogs(_ dialogs: [(Dialog, JSONValue)], observedAt: Int) async throws {
        _ = try await upsertDialogs(rawItems: dialogs.map(\.1), at: observedAt)
    }

    public func cursor(dialogID: String) async throws -> CrawlCursor {
        try await crawlState(dialogID: dialogID)?.cursor ?? CrawlCursor()
    }

    public func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: CrawlCursor?, observedAt: Int, indexFiles: Bool
    ) async throws -> PageCounts {
        try await writePage(
            dialogID: dialogID, messages: messages, cursor: cursor, at: observedAt, indexFiles: indexFiles)
    }

    public func prepareFileIndex(indexing: Bool) async throws {
        if indexing { try await indexFilesIfNeeded() } else { try await markFilesUnindexed() }
    }

    public func recordFetch(key: String, outcome: FetchOutcome) async throws {
        try await recordFetch(key: key, outcome: outcome, at: SQLiteArchive.now())
    }

    public func makeFileWriter() throws -> FileStore.Writer {
        try fileStore.makeWriter()
    }

    public func removePartialFiles() {
        fileStore.removeLeftovers()
    }

    public func liveMessageIDs(dialogID: String) async throws -> Set<String> {
        Set(try await liveMessageIDs(dialogID: dialogID) as [String])
    }

    public func liveDialogIDs() async throws -> Set<String> {
        Set(try await liveDialogIDs() as [String])
    }

    public func recordServerCount(dialogID: String, count: Int, countedAt: Int) async throws {
        try await recordServerCount(dialogID: dialogID, count: count, at: countedAt)
    }

    public func tombstoneMessages(_ ids: [String], deletedAt: Int) async throws {
        _ = try await tombstoneMessages(ids: ids, at: deletedAt)
    }

    public func tombstoneDialog(_ id: String, deletedAt: Int) async throws {
        _ = try await tombstoneDialog(id: id, at: deletedAt)
    }
}
