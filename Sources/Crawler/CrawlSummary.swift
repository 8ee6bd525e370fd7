import Archive
import Foundation

/// How a crawl run ended and what it did; stored in the archive and printed as a one-line summary.
public struct CrawlSummary: Sendable, Hashable, Codable {
    /// How the run ended (the archive's run status: never `running` once a summary is made).
    public var status: RunStatus = .complete
    public var startedAt: Int
    public var finishedAt: Int?
    public var users = 0
    public var dialogs = 0
    public var dialogsFailed = 0
    /// App scope: users whose dialog list could not be read (their dialogs wait for the next run).
    public var listingsFailed = 0
    public var dialogsDeleted = 0
    public var messagesNew = 0
    public var messagesEdited = 0
    public var messagesDeleted = 0
    /// Messages newly recorded as hidden for some user ("delete for me"): kept, not deleted.
    public var messagesHidden = 0
    /// Dialogs newly recorded as gone from some user's list while others still have them.
    public var dialogsHidden = 0
    /// Dialog hides the listing recorded and the run withdrew: every reader then found the dialog gone (deleted
    /// for everyone between the users' lists, whose lack of it proved no hide).
    public var dialogHidesWithdrawn = 0
    /// Messages no view re-checked still lists, in groups larger than `--recheck-views`: kept as hidden
    /// for the users checked, not tombstoned (unproven).
    public var messagesUnconfirmed = 0
    public var requests = 0
    public var retries = 0
    public var bytes = 0
    /// Files downloaded, failed, too large, external or gone (`--attachments files`; `nil` otherwise).
    public var files: FileTally?
    /// Failed dialogs (by id) and users' dialog lists (`user N`), and why; `error` stopped a failed run.
    public var failures: [String: String] = [:]
    public var error: String?
    /// The run stopped because QuickBlox refused the credentials.
    public var authenticationFailed = false
    /// A worker of a shared crawl (PostgreSQL): which one; this summary is then the worker's part.
    public var worker: CrawlWorkerPart?
    /// The whole shared crawl, when this worker was the last to leave it and closed it.
    public var crawl: SharedCrawlSummary?

    public init(startedAt: Int) { self.startedAt = startedAt }

    /// The process exit code for scheduled runs: 0 complete, 1 error, 3 partial, 12 authentication
    /// failed, 130 interrupted. (2 usage, 10 archive and 11 locked are decided before a run starts.) The
    /// worker that closes a shared crawl reports the crawl's outcome when its own part went well.
    public var exitCode: Int32 {
        if status == .complete, let crawl, crawl.status != .complete {
            return Self.exitCode(crawl.status, authenticationFailed: false)
        }
        return Self.exitCode(status, authenticationFailed: authenticationFailed)
    }

    static func exitCode(_ status: RunStatus, authenticationFailed: Bool) -> Int32 {
        switch status {
        case .complete: 0
        case .partial: 3
        case .interrupted: 130
        case .failed, .running: authenticationFailed ? 12 : 1
        }
    }

    /// `crawl complete: 12 dialogs, 340 new, 2 edited, 1 deleted; 57 requests (3 retries), 1.2 MB in 4 s`;
    /// a worker's part begins `worker NAME complete:` and is followed by the crawl's line when it closed it.
    public var line: String {
        guard let crawl else { return partLine }
        return partLine + "\n" + crawl.line
    }

    private var partLine: String {
        var text = "\(worker.map { "worker \($0.name)" } ?? "crawl") \(status.rawValue): \(dialogs) dialogs"
        if dialogsFailed > 0 { text += " (\(dialogsFailed) failed)" }
        if listingsFailed > 0 { text += " (\(listingsFailed) users' dialog lists failed)" }
        text += ", \(messagesNew) new, \(messagesEdited) edited, \(messagesDeleted) deleted"
        if messagesHidden > 0 { text += ", \(messagesHidden) hidden for someone" }
        if dialogsDeleted > 0 { text += ", \(dialogsDeleted) dialogs deleted" }
        if dialogsHidden > 0 { text += ", \(dialogsHidden) dialogs hidden for someone" }
        if dialogHidesWithdrawn > 0 {
            text += ", \(dialogHidesWithdrawn) dialog hides withdrawn (the dialog was gone for every reader)"
        }
        if messagesUnconfirmed > 0 { text += ", \(messagesUnconfirmed) gone from every view checked (kept)" }
        let megabytes = Double(bytes) / 1_000_000
        text += "; \(requests) requests (\(retries) retries), \(String(format: "%.1f", megabytes)) MB"
        if let files {
            text +=
                "; files: \(files.downloaded) downloaded (\(String(format: "%.1f", Double(files.bytes) / 1_000_000)) MB)"
            if files.failed > 0 { text += ", \(files.failed) failed" }
            if files.tooLarge > 0 { text += ", \(files.tooLarge) too large" }
            if files.external > 0 { text += ", \(files.external) external" }
            if files.gone > 0 { text += ", \(files.gone) gone" }
        }
        if let worker, worker.takenOver > 0 { text += "; took over \(worker.takenOver) dialogs of stopped workers" }
        if let finishedAt { text += " in \(finishedAt - startedAt) s" }
        if let error { text += " — \(error)" }
        return text
    }
}

extension CrawlSummary {
    /// The tallies the archive keeps for the run.
    var runCounts: RunCounts {
        RunCounts(
            dialogs: dialogs, newMessages: messagesNew, editedMessages: messagesEdited,
            deletedMessages: messagesDeleted, requests: requests, retries: retries, bytes: bytes)
    }
}
