import Archive
import Foundation

/// A worker's place in a shared crawl (PostgreSQL), reported with its summary.
public struct CrawlWorkerPart: Sendable, Hashable, Codable {
    /// The worker's name (`--worker-name`; host and process id by default).
    public var name: String
    /// The crawl's run id (`runs.id`): every worker of one crawl shows the same.
    public var run: Int64
    /// The worker's id in the archive (`crawl_workers.id`).
    public var id: Int64
    /// Whether this worker began the crawl (the others joined it).
    public var began: Bool
    /// Dialogs this worker took over from a worker that stopped heartbeating.
    public var takenOver = 0

    public init(name: String, run: Int64, id: Int64, began: Bool) {
        self.name = name
        self.run = run
        self.id = id
        self.began = began
    }
}

/// The whole of a shared crawl, as the last worker to leave closed it and printed it.
public struct SharedCrawlSummary: Sendable, Hashable, Codable {
    public var status: RunStatus
    public var workers: Int
    public var users: Int
    public var dialogs: Int
    public var dialogsFailed: Int
    public var listingsFailed: Int
    public var messagesNew: Int
    public var messagesEdited: Int
    public var requests: Int
    public var retries: Int
    public var bytes: Int
    public var startedAt: Int
    public var finishedAt: Int
    public var failures: [String: String]

    public init(_ result: SharedCrawlResult) {
        status = result.status
        workers = result.workers
        users = result.users
        dialogs = result.counts.dialogs
        dialogsFailed = result.failures.count
        listingsFailed = result.listingsFailed
        messagesNew = result.counts.newMessages
        messagesEdited = result.counts.editedMessages
        requests = result.counts.requests
        retries = result.counts.retries
        bytes = result.counts.bytes
        startedAt = result.startedAt
        finishedAt = result.endedAt
        failures = result.failures
    }

    /// `crawl complete (2 workers): 12 dialogs, 340 new, 2 edited; 57 requests (3 retries), 1.2 MB in 4 s`
    public var line: String {
        var text = "crawl \(status.rawValue) (\(workers) worker\(workers == 1 ? "" : "s")): \(dialogs) dialogs"
        if dialogsFailed > 0 { text += " (\(dialogsFailed) failed)" }
        if listingsFailed > 0 { text += " (\(listingsFailed) users' dialog lists failed)" }
        text += ", \(messagesNew) new, \(messagesEdited) edited"
        text += "; \(requests) requests (\(retries) retries), "
        text += String(format: "%.1f MB", Double(bytes) / 1_000_000) + " in \(finishedAt - startedAt) s"
        return text
    }
}
