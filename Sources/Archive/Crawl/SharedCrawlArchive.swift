import Foundation
import QuickBlox

/// An archive on which several crawl processes (workers, on one host or many) share one crawl: the
/// dialogs to crawl are leases that one worker holds at a time, kept alive by its heartbeat and taken over
/// by another worker when it expires (the worker died or lost its connection). A PostgreSQL archive is one;
/// a SQLite archive keeps one crawl at a time behind its lock file.
///
/// One crawl is one `runs` row (the crawl's summary, which `updatedSince()` and `status` read);
/// each worker that took part has a summary of its own (``CrawlWorkerReport``). Every time is the archive's
/// own clock, so workers on hosts whose clocks differ agree on when a lease expires.
///
/// A worker's life: ``joinCrawl(worker:scope:lease:)`` (joins the running crawl or begins one), then
/// ``claimListing(_:lease:)`` until the listing is published (one worker lists users and dialogs and
/// ``publishListing(_:dialogs:users:listingsFailed:)``; in app scope the users' dialog lists are shared as
/// listing parts, ``claimListingPart(_:lease:)``, which the waiting workers list too), then ``claimDialog(_:lease:)`` and
/// ``finishDialog(_:dialogID:error:)`` until every dialog is done, ``heartbeat(_:lease:)`` all along, and
/// ``leaveCrawl(_:report:)`` at the end.
public protocol SharedCrawlArchive: ArchiveWriter {
    /// Joins the crawl running on the archive, or begins one when none is (a crawl whose workers all stopped
    /// heartbeating is closed as interrupted first).
    ///
    /// - Throws: ``SharedCrawlError/otherScope(running:asked:)`` when the running crawl covers another scope.
    func joinCrawl(worker name: String, scope: String, lease: Int) async throws -> CrawlMembership
    /// Whether this worker lists the crawl's users and dialogs now, another worker is listing, or the listing
    /// is published.
    func claimListing(_ membership: CrawlMembership, lease: Int) async throws -> ListingClaim
    /// Publishes the users whose dialog lists make the listing (app scope), in order, as parts of `partSize`
    /// users any worker may claim; the worker holding the listing claim calls it once, and again after taking
    /// the claim over changes nothing.
    func publishListingParts(_ membership: CrawlMembership, readers: [Int], partSize: Int) async throws
    /// Every reader of the published listing parts, in order (`nil`: none published yet).
    func listingReaders(_ membership: CrawlMembership) async throws -> [Int]?
    /// Claims the next listing part no live worker holds (`FOR UPDATE SKIP LOCKED`), or says to wait (live
    /// workers hold the rest), that every part is listed, or that none is published yet.
    func claimListingPart(_ membership: CrawlMembership, lease: Int) async throws -> ListingPartClaim
    /// Records a claimed part's dialog lists (a part another worker took over meanwhile is left to it).
    func finishListingPart(_ membership: CrawlMembership, part: Int, lists: [ReaderListing]) async throws
    /// Hands every listed part's lists to `body`, part after part in the readers' order.
    func forEachListedPart(_ membership: CrawlMembership, _ body: ([ReaderListing]) async throws -> Void)
        async throws
    /// Publishes the crawl's dialogs, in crawl order, as leases any worker may claim.
    func publishListing(_ membership: CrawlMembership, dialogs: [LeasedDialog], users: Int, listingsFailed: Int)
        async throws
    /// Claims the next dialog no live worker holds (`FOR UPDATE SKIP LOCKED`: workers never wait for each
    /// other), or says to wait (live workers hold the rest) or that every dialog is done.
    func claimDialog(_ membership: CrawlMembership, lease: Int) async throws -> DialogClaim
    /// Records that this worker finished a dialog (`error`: it failed, and the crawl ends partial); a dialog
    /// whose lease another worker took over meanwhile is left to that worker.
    func finishDialog(_ membership: CrawlMembership, dialogID: String, error: String?) async throws
    /// Gives a dialog back unfinished (the worker is stopping), so another worker takes it at once.
    func releaseDialog(_ membership: CrawlMembership, dialogID: String) async throws
    /// Keeps this worker's leases (and its listing claim) alive for `lease` seconds more.
    func heartbeat(_ membership: CrawlMembership, lease: Int) async throws
    /// Records this worker's summary and gives back what it still holds. The last worker to leave closes the
    /// crawl: its run gets the status and tallies of the whole crawl, returned here (`nil` while other
    /// workers go on).
    func leaveCrawl(_ membership: CrawlMembership, report: CrawlWorkerReport) async throws -> SharedCrawlResult?
    /// Asked by a worker that left a finished crawl which others had not left: closes the crawl when no live
    /// worker is left in it (one that died after its last dialog still looks live until its lease runs out).
    func closeIfAbandoned(_ membership: CrawlMembership) async throws -> CrawlClosing
}

/// What ``SharedCrawlArchive/closeIfAbandoned(_:)`` found.
public enum CrawlClosing: Sendable, Hashable {
    /// This call closed the crawl.
    case closed(SharedCrawlResult)
    /// Another worker closed it (or a new crawl found it abandoned).
    case closedElsewhere
    /// A live worker is still in it: it will close the crawl when it leaves.
    case workersLeft
}

/// A worker's place in a shared crawl.
public struct CrawlMembership: Sendable, Hashable {
    /// The crawl's run (`runs.id`).
    public var runID: Int64
    /// This worker's id (`crawl_workers.id`).
    public var workerID: Int64
    /// When the crawl began (its window: dialogs created later belong to the next crawl).
    public var startedAt: Int
    /// The start of the last completed crawl before this one (the `updated_at` pass), `nil` on a first crawl.
    public var since: Int?
    /// Whether this worker began the crawl (the others joined it).
    public var began: Bool

    public init(runID: Int64, workerID: Int64, startedAt: Int, since: Int?, began: Bool) {
        self.runID = runID
        self.workerID = workerID
        self.startedAt = startedAt
        self.since = since
        self.began = began
    }
}

/// A dialog of a shared crawl: what a worker needs to crawl it, as the lister found it.
public struct LeasedDialog: Sendable, Hashable {
    public var dialogID: String
    /// The dialog as the server listed it (decoded again by the worker that claims it).
    public var raw: JSONValue
    /// App scope: the user whose view reads it; `nil`: the session's own user.
    public var reader: Int?
    /// App scope: every user whose list shows it, the reader first.
    public var listers: [Int]

    public init(dialogID: String, raw: JSONValue, reader: Int?, listers: [Int]) {
        self.dialogID = dialogID
        self.raw = raw
        self.reader = reader
        self.listers = listers
    }
}

/// What ``SharedCrawlArchive/claimListing(_:lease:)`` found.
public enum ListingClaim: Sendable, Hashable {
    /// This worker lists now (no one was, or the worker listing stopped heartbeating).
    case yours
    /// Another live worker is listing.
    case wait
    /// Published: `users` and `dialogs` listed, `listingsFailed` users' lists unreadable (app scope).
    case published(users: Int, dialogs: Int, listingsFailed: Int)
}

/// What ``SharedCrawlArchive/claimListingPart(_:lease:)`` found.
public enum ListingPartClaim: Sendable, Hashable {
    /// This worker lists these readers' dialogs now; `takenOver`: a worker that held the part stopped.
    case part(Int, readers: [Int], takenOver: Bool)
    /// Live workers hold every part not listed yet.
    case wait
    /// Every part is listed.
    case listed
    /// No part is published yet (the lister is still reading the users).
    case notPublished
}

/// One user's dialog list in a listing part: the dialogs as the server sent them, or why it could not be read.
public struct ReaderListing: Sendable, Hashable {
    public var reader: Int
    public var dialogs: [JSONValue]
    /// Set when the list could not be read after retries (then `dialogs` is empty).
    public var failure: String?

    public init(reader: Int, dialogs: [JSONValue], failure: String? = nil) {
        self.reader = reader
        self.dialogs = dialogs
        self.failure = failure
    }
}

/// What ``SharedCrawlArchive/claimDialog(_:lease:)`` found.
public enum DialogClaim: Sendable, Hashable {
    /// This worker holds the dialog's lease now; `takenOver`: another worker held it and stopped heartbeating.
    case dialog(LeasedDialog, takenOver: Bool)
    /// Live workers hold every dialog not done; ask again later (one may die, and its dialogs come back).
    case wait
    /// Every dialog of the crawl is done.
    case finished
}

/// One worker's summary of its part of a shared crawl.
public struct CrawlWorkerReport: Sendable, Hashable {
    public var status: RunStatus
    public var counts: RunCounts
    public var error: String?
    public var endedAt: Int

    public init(status: RunStatus, counts: RunCounts, error: String?, endedAt: Int) {
        self.status = status
        self.counts = counts
        self.error = error
        self.endedAt = endedAt
    }
}

/// The whole crawl, as the last worker to leave closed it.
public struct SharedCrawlResult: Sendable, Hashable {
    public var status: RunStatus
    public var counts: RunCounts
    /// Workers that took part (including ones that died).
    public var workers: Int
    /// Dialogs that failed, and why.
    public var failures: [String: String]
    public var users: Int
    public var listingsFailed: Int
    public var startedAt: Int
    public var endedAt: Int

    public init(
        status: RunStatus, counts: RunCounts, workers: Int, failures: [String: String], users: Int,
        listingsFailed: Int, startedAt: Int, endedAt: Int
    ) {
        self.status = status
        self.counts = counts
        self.workers = workers
        self.failures = failures
        self.users = users
        self.listingsFailed = listingsFailed
        self.startedAt = startedAt
        self.endedAt = endedAt
    }
}

/// Why a worker cannot join the crawl running on an archive.
public enum SharedCrawlError: Error, Sendable, Hashable {
    /// The running crawl covers another scope (`user` or `app`): a worker must crawl what the others crawl.
    case otherScope(running: String, asked: String)
    /// The crawl this worker belonged to was closed (every worker looked dead) while it was away.
    case crawlClosed(runID: Int64)
    /// A claim's statement took more than one dialog (a fault of the backend's SQL; the claim is rolled back).
    case claimedMoreThanOne(Int)
}

extension SharedCrawlError: LocalizedError {
    public var errorDescription: String? {
        switch self {
        case .otherScope(let running, let asked):
            "a crawl of scope \(running) is running on this archive; a worker of scope \(asked) cannot join it "
                + "(start workers with the same --scope, or wait until it ends)"
        case .claimedMoreThanOne(let count):
            "a claim took \(count) dialogs at once instead of one (a fault in qbarchive; nothing was crawled twice)"
        case .crawlClosed(let runID):
            "crawl run \(runID) was closed as interrupted while this worker was not heartbeating "
                + "(its connection to the archive was lost for longer than the lease)"
        }
    }
}
