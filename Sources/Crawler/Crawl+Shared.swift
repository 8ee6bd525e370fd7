import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// Runs this process as one worker of the crawl shared on `shared` (joining it, or beginning it when none
    /// runs): one worker lists users and dialogs, then every worker claims dialogs one lease at a time,
    /// `options.concurrency` at once, until every dialog of the crawl is done — taking over the dialogs of a
    /// worker whose heartbeat stopped. The summary is this worker's part; the last worker to leave adds the
    /// crawl's (``CrawlSummary/crawl``).
    ///
    /// Nothing is fetched twice while workers heartbeat (a lease is held by one worker) and nothing is missed
    /// (a worker leaves only when every dialog is done, or when it is stopped, giving back what it held). A
    /// worker cut off from the archive for longer than its lease may find its dialog taken over: both then
    /// fetch it, which stores nothing twice (pages are idempotent) but costs requests.
    func runShared(_ shared: any SharedCrawlArchive, worker: WorkerOptions) async throws -> CrawlSummary {
        // An erasure cut short after its transaction is finished before anything new is written.
        try await archive.purgeErased()
        let membership = try await shared.joinCrawl(
            worker: worker.name, scope: options.scope.rawValue, lease: worker.lease)
        var summary = CrawlSummary(startedAt: Int(Date().timeIntervalSince1970))
        summary.worker = CrawlWorkerPart(
            name: worker.name, run: membership.runID, id: membership.workerID, began: membership.began)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await Self.heartbeat(shared, membership, worker: worker, logger: logger) }
                defer { group.cancelAll() }
                let total = try await list(shared, membership, worker: worker, into: &summary)
                if indexFiles {
                    try await archive.indexFilesIfNeeded()
                } else {
                    try await archive.markFilesUnindexed()
                }
                try await crawlLeased(shared, membership, worker: worker, total: total, into: &summary)
                if Task.isCancelled { summary.status = .interrupted }
            }
        } catch {
            Self.recordEnd(error, into: &summary)
        }
        await takeStatistics(into: &summary)
        let report = CrawlWorkerReport(
            status: summary.status, counts: summary.runCounts, error: summary.error,
            endedAt: summary.finishedAt ?? ArchiveTime.now())
        // Recorded even when the worker was interrupted: a new task does not inherit the cancellation.
        if let result = try await Task(operation: { try await shared.leaveCrawl(membership, report: report) }).value {
            summary.crawl = SharedCrawlSummary(result)
        } else if summary.status == .complete || summary.status == .partial {
            // Every dialog is done and others had not left: the last of them closes the crawl, unless it died
            // after its last dialog (it looks live until its lease runs out); then this worker closes it.
            if let result = try await closeWhenAbandoned(shared, membership, worker: worker) {
                summary.crawl = SharedCrawlSummary(result)
            }
        }
        return summary
    }

    /// Waits, up to a lease and a little, until the other workers of a finished crawl have left (one of them
    /// closes it) or stopped heartbeating (then this worker closes it).
    private func closeWhenAbandoned(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions
    ) async throws -> SharedCrawlResult? {
        let deadline = ContinuousClock.now + .seconds(worker.lease + 2)
        while ContinuousClock.now < deadline, !Task.isCancelled {
            switch try await shared.closeIfAbandoned(membership) {
            case .closed(let result): return result
            case .closedElsewhere: return nil
            case .workersLeft: try? await Task.sleep(for: worker.poll)
            }
        }
        return nil
    }

    /// Keeps the worker's leases alive every third of a lease until cancelled; a missed beat is logged (the
    /// next may succeed before the lease runs out).
    static func heartbeat(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions, logger: Logger
    ) async {
        let interval = Duration.milliseconds(max(200, worker.lease * 1000 / 3))
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
                try await shared.heartbeat(membership, lease: worker.lease)
            } catch is CancellationError {
                return
            } catch {
                logger.warning("heartbeat failed", metadata: ["error": "\(error.localizedDescription)"])
            }
        }
    }

    /// Waits until the crawl's dialogs are listed, listing them itself when no live worker is; returns how
    /// many dialogs the crawl has.
    private func list(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions,
        into summary: inout CrawlSummary
    ) async throws -> Int {
        while true {
            switch try await shared.claimListing(membership, lease: worker.lease) {
            case .published(let users, let dialogs, let listingsFailed):
                summary.users = users
                summary.listingsFailed = listingsFailed
                if listingsFailed > 0 { summary.status = .partial }
                events(.listed(users: users, dialogs: dialogs))
                return dialogs
            case .wait:
                // In app scope the lister shares the users' dialog lists: list a part while it lists.
                if options.scope == .app, case .part = try await listPart(shared, membership, worker: worker) {
                    continue
                }
                try await Task.sleep(for: worker.poll)
            case .yours:
                var listing = CrawlSummary(startedAt: membership.startedAt)
                let targets: [Target]
                let userCount: Int
                if options.scope == .app {
                    (targets, userCount) = try await listShared(shared, membership, worker: worker, into: &listing)
                } else {
                    let users = try await crawlUsers(at: membership.startedAt)
                    targets = try await listDialogs(users: users, runStart: membership.startedAt, into: &listing)
                    userCount = users.count
                }
                summary.failures.merge(listing.failures) { first, _ in first }
                summary.dialogsHidden += listing.dialogsHidden
                try await shared.publishListing(
                    membership,
                    dialogs: targets.map {
                        LeasedDialog(dialogID: $0.dialog.id, raw: $0.raw, reader: $0.reader, listers: $0.listers)
                    },
                    users: userCount, listingsFailed: listing.listingsFailed)
            }
        }
    }

    /// One step of a worker's claim loop.
    private enum Step: Sendable {
        case crawled(DialogOutcome, takenOver: Bool)
        case waited
        case finished
    }

    /// Claims and crawls dialogs, `options.concurrency` at a time, until every dialog of the crawl is done.
    private func crawlLeased(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions, total: Int,
        into summary: inout CrawlSummary
    ) async throws {
        // A step holds a slot while it claims and crawls; it frees it when every dialog is done or while it
        // waits for other workers' dialogs, so this worker's long dialogs can go on in parts (``WalkSlots``).
        let slots = WalkSlots(free: max(1, options.concurrency))
        try await withThrowingTaskGroup(of: Step.self) { group in
            let step: @Sendable () async throws -> Step = {
                try await self.claimAndCrawl(shared, membership, worker: worker, slots: slots)
            }
            for _ in 0..<max(1, options.concurrency) {
                slots.take()
                group.addTask(operation: step)
            }
            var done = 0
            var ending: (any Error)?
            while let next = try await group.next() {
                switch next {
                case .finished:
                    slots.give()
                case .waited:
                    if ending == nil, !Task.isCancelled {
                        slots.take()
                        group.addTask(operation: step)
                    }
                case .crawled(let outcome, let takenOver):
                    done += 1
                    summary.dialogs += 1
                    if takenOver { summary.worker?.takenOver += 1 }
                    tally(outcome, done: done, total: total, into: &summary, ending: &ending) { group.cancelAll() }
                    if ending == nil, !Task.isCancelled { group.addTask(operation: step) } else { slots.give() }
                }
            }
            if let ending { throw ending }
        }
    }

    /// Claims one dialog and crawls it, records how it went, and gives it back unfinished when the worker is
    /// stopping; waits a poll interval when live workers hold every dialog not done.
    private func claimAndCrawl(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions, slots: WalkSlots
    ) async throws -> Step {
        switch try await shared.claimDialog(membership, lease: worker.lease) {
        case .finished:
            return .finished
        case .wait:
            slots.give()
            try await Task.sleep(for: worker.poll)
            return .waited
        case .dialog(let leased, let takenOver):
            let outcome: DialogOutcome
            do {
                let dialog = try Dialog(json: leased.raw)
                let target = Target(dialog: dialog, raw: leased.raw, reader: leased.reader, listers: leased.listers)
                outcome = await self.outcome(
                    of: target, since: membership.since, runStart: membership.startedAt, slots: slots)
            } catch {
                outcome = DialogOutcome(dialogID: leased.dialogID, error: error)
            }
            let stopping = Task.isCancelled || outcome.error.map(Self.endsRun) == true
            // Out of the cancelled task: the lease must be recorded either way.
            try await Task {
                if stopping {
                    try await shared.releaseDialog(membership, dialogID: leased.dialogID)
                } else {
                    try await shared.finishDialog(
                        membership, dialogID: leased.dialogID, error: outcome.error?.localizedDescription)
                }
            }.value
            return .crawled(outcome, takenOver: takenOver)
        }
    }
}
