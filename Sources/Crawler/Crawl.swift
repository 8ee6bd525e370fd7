import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

/// What a crawl run covers.
public struct CrawlOptions: Sendable {
    public var scope: CrawlSettings.Scope = .user
    /// Only these dialogs (all when empty).
    public var dialogIDs: [String] = []
    /// Dialogs crawled at once.
    public var concurrency = 4
    /// Compare server counts with the archive and record deletions.
    public var reconcile = false
    /// App scope: how many other occupants a reconcile asks about messages the reading view no longer
    /// lists, before holding them as deleted for everyone (0: every occupant). See docs/backups.md.
    public var recheckViews = 16
    /// Messages per page asked for (the server may clamp it).
    public var pageSize = 100
    /// A targeted crawl (`--where`): only messages matching these `/chat/Message` filters are fetched,
    /// from the start of each dialog, and no dialog's cursor moves, so full runs are not affected.
    public var messageFilters: [(String, String)] = []
    /// The `--where` query behind ``messageFilters``, recorded with the run.
    public var query: String?
    /// What happens to the files attachments name.
    public var attachments = AttachmentOptions()
    /// Set: this run is a worker of a shared crawl (an archive that is a ``SharedCrawlArchive``), which
    /// shares the dialogs with the other workers through leases. Only for whole crawls: not with `--where`,
    /// `--dialog`, `--reconcile` or `--attachments files`.
    public var worker: WorkerOptions?

    public init() {}
}

/// Progress of a run, for a live display or `--json` events.
public enum CrawlEvent: Sendable {
    case listed(users: Int, dialogs: Int)
    /// A worker of a shared crawl (app scope) read one part of the users' dialog lists: `users` lists.
    case listingPart(part: Int, users: Int)
    case dialogFinished(id: String, new: Int, edited: Int, done: Int, total: Int)
    case dialogFailed(id: String, reason: String)
    /// A long dialog's walk went on in `parts` parts at once from the second `from`, its crawl's other walks
    /// being done (``Crawl/walkRange(_:from:below:savesCursor:slots:runStart:)``).
    case dialogParts(id: String, parts: Int, from: Int)
    /// App scope: the dialog's reader (`from`) could no longer read it (`reason`: 403 or 404, they left it or
    /// removed it from their list after the listing), and it goes on as `to`, the next user who listed it.
    case readerChanged(id: String, from: Int?, to: Int, reason: String)
    /// App scope: a user's dialog list could not be read after retries; the other users' dialogs go on.
    case listingFailed(user: Int, reason: String)
    case tombstoned(messages: Int, dialogs: Int)
    /// `--attachments files`: what the run's downloads came to.
    case filesFetched(FileTally)
}

/// One crawl run: users, then dialogs in a frozen window, then each dialog's new and changed messages.
public struct Crawl: Sendable {
    public let client: QuickBloxClient
    public let archive: any ArchiveWriter
    public let options: CrawlOptions
    public let logger: Logger
    public let events: @Sendable (CrawlEvent) -> Void

    public init(
        client: QuickBloxClient, archive: any ArchiveWriter, options: CrawlOptions, logger: Logger,
        events: @escaping @Sendable (CrawlEvent) -> Void = { _ in }
    ) {
        self.client = client
        self.archive = archive
        self.options = options
        self.logger = logger
        self.events = events
    }

    /// Whether pages record the files their attachments name.
    var indexFiles: Bool { options.attachments.mode != .none }

    /// How far back the `updated_at` pass reaches before the last run's start, for clock skew.
    public static let clockMargin = 300

    /// A dialog to crawl and the user whose view reads it (`nil`: the session's own user).
    struct Target: Sendable {
        var dialog: Dialog
        var raw: JSONValue
        var reader: Int?
        /// App scope: every user whose dialog list shows it, in listing order (the reader first).
        var listers: [Int] = []
        /// App scope: occupants of the reader's copy that a later list's copy no longer names — they left the
        /// dialog while the lists were read, and the lists read after that lack it without their hiding it.
        var departed: Set<Int> = []
        /// What this run stored of the dialog, whichever walk or reader stored it.
        var tally = PageTally()
    }

    /// Runs the crawl and records it; the summary's status says how it ended.
    public func run() async throws -> CrawlSummary {
        if let worker = options.worker, let shared = archive as? any SharedCrawlArchive {
            return try await runShared(shared, worker: worker)
        }
        let runStart = Int(Date().timeIntervalSince1970)
        let runScope = RunScope.recorded(options.scope.rawValue, dialogsOnly: !options.dialogIDs.isEmpty)
        let since = try await archive.updatedSince(scope: runScope)
        // The caller holds the archive's lock: a run still marked running belongs to a process that died.
        _ = try await archive.closeAbandonedRuns(
            reason: "the crawl process ended without recording its end (killed, crashed or the machine stopped); "
                + "every page it stored was kept, and the next run went on from there",
            at: runStart)
        // An erasure cut short after its transaction is finished before anything new is written.
        try await archive.purgeErased()
        let runID = try await archive.beginRun(scope: runScope, query: options.query, at: runStart)
        var summary = CrawlSummary(startedAt: runStart)
        do {
            let users = try await crawlUsers(at: runStart)
            summary.users = users.count
            let targets = try await listDialogs(users: users, runStart: runStart, into: &summary)
            summary.dialogs = targets.count
            events(.listed(users: users.count, dialogs: targets.count))
            failUnlisted(targets, into: &summary)
            if indexFiles { try await archive.indexFilesIfNeeded() } else { try await archive.markFilesUnindexed() }
            try await crawlMessagesAndFiles(targets, since: since, runStart: runStart, into: &summary)
            if Task.isCancelled { summary.status = .interrupted }
        } catch {
            Self.recordEnd(error, into: &summary)
        }
        await takeStatistics(into: &summary)
        // Recorded even when the run was interrupted: a new task does not inherit the cancellation that
        // would make the archive refuse the write.
        let record = summary
        try await Task {
            try await archive.finishRun(
                runID, status: record.status, counts: record.runCounts, error: record.error,
                at: record.finishedAt ?? ArchiveTime.now())
        }.value
        return summary
    }

    /// Records the error that ended a run: cancellation interrupts it, refused credentials fail it (exit 12),
    /// anything else fails it with its text.
    static func recordEnd(_ error: any Error, into summary: inout CrawlSummary) {
        switch error {
        case let error as QuickBloxClientError:
            switch error {
            case .cancelled: summary.status = .interrupted
            case .authenticationFailed:
                summary.status = .failed
                summary.authenticationFailed = true
            default: summary.status = .failed
            }
            summary.error = error.localizedDescription
        case is CancellationError:
            summary.status = .interrupted
        default:
            summary.status = .failed
            summary.error = error.localizedDescription
        }
    }

    /// The client's request tallies and the end time, into the run's summary.
    func takeStatistics(into summary: inout CrawlSummary) async {
        let statistics = await client.currentStatistics()
        summary.requests = statistics.requests
        summary.retries = statistics.retries
        summary.bytes = statistics.bytesReceived
        summary.finishedAt = Int(Date().timeIntervalSince1970)
    }

    /// Pages messages (and reconciles), and, with `--attachments files`, downloads files alongside.
    func crawlMessagesAndFiles(_ targets: [Target], since: Int?, runStart: Int, into summary: inout CrawlSummary)
        async throws
    {
        guard options.attachments.mode == .files else {
            try await crawlMessages(targets, since: since, runStart: runStart, into: &summary)
            if options.reconcile, !Task.isCancelled {
                try await reconcile(targets, at: Int(Date().timeIntervalSince1970), into: &summary)
            }
            return
        }
        let paging = FileFetcher.Completion()
        let fetcher = FileFetcher(client: client, archive: archive, options: options.attachments, logger: logger)
        async let files = fetcher.run(until: paging)
        do {
            defer { paging.finish() }
            try await crawlMessages(targets, since: since, runStart: runStart, into: &summary)
            if options.reconcile, !Task.isCancelled {
                try await reconcile(targets, at: Int(Date().timeIntervalSince1970), into: &summary)
            }
        }
        let tally = try await files
        summary.files = tally
        events(.filesFetched(tally))
        if tally.failed > 0, summary.status == .complete { summary.status = .partial }
    }

    /// Pages `/users.json` and stores every user (names make transcripts readable).
    func crawlUsers(at now: Int) async throws -> [User] {
        var users: [User] = []
        var page = 1
        while true {
            let result = try await client.users(page: page, perPage: 100)
            try await archive.storeUsers(Array(zip(result.items, result.rawItems)), observedAt: now)
            users += result.items
            if result.items.count < 100 || users.count >= result.totalEntries { break }
            page += 1
        }
        return users
    }

    /// Lists dialogs for the session's user, or, in app scope, for every user, de-duplicated.
    ///
    /// In app scope a user whose list cannot be read after retries is recorded (the run ends partial,
    /// and `--reconcile` then tombstones no dialog, since an unread list proves nothing gone) and the
    /// other users' dialogs are crawled; the run fails only when no list could be read. In user scope
    /// the one list failing ends the run.
    func listDialogs(users: [User], runStart: Int, into summary: inout CrawlSummary) async throws -> [Target] {
        let readers: [Int?] = options.scope == .user ? [nil] : users.map(\.id)
        return try await mergeListings(of: readers, runStart: runStart, into: &summary) { merge in
            try await forEachListing(of: readers, createdUpTo: runStart, merge)
        }
    }

    /// Whether an error ends the whole run (refused credentials, cancellation) rather than the one dialog
    /// or dialog list it happened to.
    static func endsRun(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        guard let clientError = error as? QuickBloxClientError else { return false }
        switch clientError {
        case .authenticationFailed, .cancelled: return true
        default: return false
        }
    }

    /// How one dialog's crawl ended.
    struct DialogOutcome: Sendable {
        var dialogID: String
        var counts = PageCounts()
        var error: (any Error)?
        /// Hides this run's listing recorded for the dialog, withdrawn when every reader found it gone.
        var hidesWithdrawn = 0
    }

    /// Crawls dialogs `options.concurrency` at a time; a dialog that fails is recorded and the rest go on.
    func crawlMessages(_ targets: [Target], since: Int?, runStart: Int, into summary: inout CrawlSummary) async throws {
        let slots = WalkSlots(free: max(1, options.concurrency))
        try await withThrowingTaskGroup(of: DialogOutcome.self) { group in
            var pending = targets.makeIterator()
            for _ in 0..<max(1, options.concurrency) {
                guard let target = pending.next() else { break }
                slots.take()
                group.addTask { await self.outcome(of: target, since: since, runStart: runStart, slots: slots) }
            }
            var done = 0
            var ending: (any Error)?
            while let outcome = try await group.next() {
                done += 1
                tally(outcome, done: done, total: targets.count, into: &summary, ending: &ending) { group.cancelAll() }
                if ending == nil, !Task.isCancelled, let target = pending.next() {
                    // The finished walk's slot goes to the next dialog; only the last dialogs free theirs.
                    group.addTask { await self.outcome(of: target, since: since, runStart: runStart, slots: slots) }
                } else {
                    slots.give()
                }
            }
            if let ending { throw ending }
        }
    }

    /// ``tally(_:done:total:into:)`` in a loop over the dialogs under way: an error that ends the run (cancelled,
    /// credentials refused) is kept in `ending` (the first), and `cancel` stops the others, whose outcomes are
    /// still tallied as they stop — their pages are stored, so the run's counts say so. The loop starts no new
    /// dialog once `ending` is set, and throws it at its end.
    func tally(
        _ outcome: DialogOutcome, done: Int, total: Int, into summary: inout CrawlSummary, ending: inout (any Error)?,
        cancel: () -> Void
    ) {
        do {
            try tally(outcome, done: done, total: total, into: &summary)
        } catch {
            if ending == nil { ending = error }
            cancel()
        }
    }

    /// Adds a dialog's outcome to the run's summary and reports it. Authentication and cancellation end the
    /// run (rethrown); any other error fails this dialog only, and the run ends partial.
    func tally(_ outcome: DialogOutcome, done: Int, total: Int, into summary: inout CrawlSummary) throws {
        guard let error = outcome.error else {
            summary.messagesNew += outcome.counts.new
            summary.messagesEdited += outcome.counts.edited
            events(
                .dialogFinished(
                    id: outcome.dialogID, new: outcome.counts.new, edited: outcome.counts.edited, done: done,
                    total: total))
            return
        }
        // What the dialog's pages stored before it failed or stopped is in the archive: counted, as the pages are
        // kept.
        summary.messagesNew += outcome.counts.new
        summary.messagesEdited += outcome.counts.edited
        if Self.endsRun(error) { throw error }
        summary.dialogsFailed += 1
        summary.dialogHidesWithdrawn += outcome.hidesWithdrawn
        summary.failures[outcome.dialogID] = error.localizedDescription
        summary.status = .partial
        logger.error(
            "dialog failed", metadata: ["dialog": "\(outcome.dialogID)", "error": "\(error.localizedDescription)"])
        events(.dialogFailed(id: outcome.dialogID, reason: error.localizedDescription))
    }

    /// New messages from the dialog's cursor (in parts when it is long and `slots` has some free), then messages
    /// changed since the last completed run. What the pages stored adds up in the target's tally.
    func crawlDialog(_ target: Target, since: Int?, runStart: Int, slots: WalkSlots? = nil) async throws {
        if options.query != nil { return try await crawlTargeted(target, runStart: runStart) }
        let start = try await archive.crawlState(dialogID: target.dialog.id)?.cursor ?? CrawlCursor()
        // The dialog's newest message says whether anything is new since the cursor (an empty dialog has
        // none; a message that arrives later also shows in the updated_at pass).
        var hasNew = false
        if let newest = target.dialog.lastMessageDateSent {
            hasNew =
                start.dateSent == nil || newest > (start.dateSent ?? 0)
                || (newest == start.dateSent && !start.idsAtDateSent.contains(target.dialog.lastMessageID ?? ""))
        }
        if hasNew {
            _ = try await walkRange(
                target, from: start, below: nil, savesCursor: true, slots: slots, runStart: runStart)
        }
        if let since {
            var pager = MessagePager(client: client, dialogID: target.dialog.id, onBehalfOf: target.reader)
            pager.pageSize = options.pageSize
            // Edits (and messages created late with an old date_sent) show as updated_at after the last run.
            // `gte` and a margin: the server's clock is not ours, and seconds are coarse; re-reading a few
            // unchanged messages costs nothing, missing an edit loses it.
            pager.filters = [("updated_at[gte]", String(since - Self.clockMargin))]
            pager.newest = nil
            try await pager.walk(from: CrawlCursor()) { batch in
                try await store(batch.messages, batch.rawMessages, of: target, cursor: nil, at: runStart)
            }
        }
    }

    /// A targeted crawl of one dialog: every message matching ``CrawlOptions/messageFilters``, stored
    /// without moving the dialog's cursor. A `date_sent[gte]` filter becomes the walk's starting cursor
    /// (the pager owns that parameter).
    func crawlTargeted(_ target: Target, runStart: Int) async throws {
        var pager = MessagePager(client: client, dialogID: target.dialog.id, onBehalfOf: target.reader)
        pager.pageSize = options.pageSize
        var start = CrawlCursor()
        for (key, value) in options.messageFilters {
            if key == "date_sent[gte]", let seconds = Int(value) {
                start.dateSent = max(start.dateSent ?? seconds, seconds)
            } else {
                pager.filters.append((key, value))
            }
        }
        try await pager.walk(from: start) { batch in
            try await store(batch.messages, batch.rawMessages, of: target, cursor: nil, at: runStart)
        }
    }
}

extension PageCounts {
    mutating func add(_ other: PageCounts) {
        new += other.new
        edited += other.edited
        unchanged += other.unchanged
    }
}

extension Crawl.Target {
    /// The order dialogs are crawled in (and, by workers sharing a crawl, claimed in): the most unread messages
    /// first, then as listed (by creation). A dialog's walk is one page after another until the crawl's other
    /// dialogs are done and it goes on in parts (``Crawl/walkRange(_:from:below:savesCursor:slots:runStart:)``),
    /// never shared with another worker: a long dialog started first overlaps the others instead of running in
    /// their place at the end; the reader's `unread_messages_count` is
    /// the only size the listing gives (a lower bound: messages the reader has not read exist), and it costs
    /// no request. In the bench's data one dialog in 200 holds a fifth of the messages: started last, it
    /// kept two workers 3 s behind one worker's pace (docs/performance.md).
    static func crawlOrder(_ targets: [Self]) -> [Self] {
        targets.enumerated().sorted {
            let (left, right) = ($0.element.dialog.unreadMessagesCount ?? 0, $1.element.dialog.unreadMessagesCount ?? 0)
            return left != right ? left > right : $0.offset < $1.offset
        }.map(\.element)
    }

    /// The newest message the reader's listing showed, which a walk must reach before a short page ends it.
    var newest: MessagePager.Newest? {
        dialog.lastMessageDateSent.map { MessagePager.Newest(dateSent: $0, id: dialog.lastMessageID) }
    }
}

extension Crawl {
    /// A `--dialog` that no list this run read shows is a failure of the run (partial, exit 3), not a quiet
    /// "0 dialogs": a mistyped id, or a dialog this login cannot see, must not pass for a backup of it.
    func failUnlisted(_ targets: [Target], into summary: inout CrawlSummary) {
        guard !options.dialogIDs.isEmpty else { return }
        let listed = Set(targets.map(\.dialog.id))
        for id in Set(options.dialogIDs).subtracting(listed).sorted() {
            let reason =
                "--dialog \(id): no dialog list this run read shows it (a mistyped id, or a dialog this login "
                + "cannot see); nothing of it was archived"
            summary.dialogsFailed += 1
            summary.failures[id] = reason
            summary.status = .partial
            events(.dialogFailed(id: id, reason: reason))
        }
    }
}
