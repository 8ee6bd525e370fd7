import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import Testing

/// The leases that let several crawl workers share one crawl of a PostgreSQL archive
/// (``Archive/SharedCrawlArchive``): listing claimed by one worker, each dialog held by one live worker at a
/// time, an expired lease taken over, the last worker closing the crawl with the whole crawl's outcome.
@Suite(.postgres, .sharedCluster)
struct SharedCrawlTests {
    static func dialogs(_ count: Int) -> [LeasedDialog] {
        (0..<count).map { index in
            let id = String(format: "d%03d", index)
            return LeasedDialog(dialogID: id, raw: ["_id": .string(id), "type": 2], reader: nil, listers: [])
        }
    }

    static func report(_ status: RunStatus = .complete, new: Int = 0) -> CrawlWorkerReport {
        CrawlWorkerReport(status: status, counts: RunCounts(newMessages: new), error: nil, endedAt: 0)
    }

    @Test func oneListsTheOthersWaitThenEachDialogGoesToOneWorker() async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let first = try await archive.joinCrawl(worker: "a", scope: "user", lease: 60)
        let second = try await archive.joinCrawl(worker: "b", scope: "user", lease: 60)
        #expect(first.began && !second.began)
        #expect(first.runID == second.runID && first.startedAt == second.startedAt)
        #expect(try await archive.claimListing(first, lease: 60) == .yours)
        #expect(try await archive.claimListing(second, lease: 60) == .wait)
        try await archive.publishListing(first, dialogs: Self.dialogs(3), users: 4, listingsFailed: 0)
        #expect(
            try await archive.claimListing(second, lease: 60) == .published(users: 4, dialogs: 3, listingsFailed: 0))

        var claimed: [String] = []
        for membership in [first, second, first] {
            guard case .dialog(let leased, let takenOver) = try await archive.claimDialog(membership, lease: 60) else {
                Issue.record("no dialog to claim")
                return
            }
            #expect(!takenOver)
            claimed.append(leased.dialogID)
        }
        #expect(claimed == ["d000", "d001", "d002"], "claims follow the crawl order, each dialog once")
        #expect(try await archive.claimDialog(second, lease: 60) == .wait, "live workers hold every dialog left")
        try await archive.finishDialog(first, dialogID: "d000", error: nil)
        try await archive.finishDialog(second, dialogID: "d001", error: "HTTP 500")
        try await archive.finishDialog(first, dialogID: "d002", error: nil)
        #expect(try await archive.claimDialog(second, lease: 60) == .finished)

        #expect(try await archive.leaveCrawl(first, report: Self.report(new: 5)) == nil, "another worker goes on")
        let result = try #require(try await archive.leaveCrawl(second, report: Self.report(.partial, new: 7)))
        #expect(result.status == .partial && result.workers == 2 && result.failures == ["d001": "HTTP 500"])
        #expect(result.counts.newMessages == 12 && result.counts.dialogs == 3 && result.users == 4)
        let runs = try await archive.runs(limit: 10)
        #expect(runs.map(\.status) == [.partial] && runs.first?.counts.newMessages == 12)
    }

    /// A claim takes one dialog whatever plan PostgreSQL picks. Once the statistics know an earlier crawl's
    /// leases but not the new crawl's, a claim written as a `LIMIT 1 … SKIP LOCKED` subquery joined in `FROM` was
    /// planned as a nested loop that ran the subquery again for each row, and one statement claimed every dialog.
    @Test func aClaimTakesOneDialogWhenTheStatisticsKnowAnEarlierCrawl() async throws {
        let location = try await SharedCluster.database()
        let archive = try await PostgresArchive.open(location)
        defer { Task { await archive.close() } }
        let first = try await archive.joinCrawl(worker: "a", scope: "user", lease: 60)
        _ = try await archive.claimListing(first, lease: 60)
        try await archive.publishListing(first, dialogs: Self.dialogs(20), users: 1, listingsFailed: 0)
        while case .dialog(let leased, _) = try await archive.claimDialog(first, lease: 60) {
            try await archive.finishDialog(first, dialogID: leased.dialogID, error: nil)
        }
        _ = try await archive.leaveCrawl(first, report: Self.report())
        try await withClient(location) { client in _ = try await client.query("ANALYZE crawl_leases").collect() }

        let second = try await archive.joinCrawl(worker: "b", scope: "user", lease: 60)
        _ = try await archive.claimListing(second, lease: 60)
        try await archive.publishListing(second, dialogs: Self.dialogs(20), users: 1, listingsFailed: 0)
        guard case .dialog = try await archive.claimDialog(second, lease: 60) else {
            Issue.record("nothing to claim")
            return
        }
        let held = try await withClient(location) { client in
            try await column(
                client, "SELECT count(*) FROM crawl_leases WHERE run_id = \(second.runID) AND worker_id IS NOT NULL",
                as: Int64.self)
        }
        #expect(held == [1], "one claim took \(held) dialogs")
    }

    @Test func anExpiredLeaseIsTakenOverAndItsFormerHoldersWordIgnored() async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let slow = try await archive.joinCrawl(worker: "slow", scope: "user", lease: 60)
        let other = try await archive.joinCrawl(worker: "other", scope: "user", lease: 60)
        _ = try await archive.claimListing(slow, lease: 60)
        try await archive.publishListing(slow, dialogs: Self.dialogs(2), users: 1, listingsFailed: 0)
        #expect(try await archive.claimDialog(slow, lease: 1) == .dialog(Self.dialogs(1)[0], takenOver: false))
        // The lease lasts a second on the server's clock; it has expired when that second is over.
        try await Task.sleep(for: .milliseconds(2200))
        #expect(try await archive.claimDialog(other, lease: 60) == .dialog(Self.dialogs(1)[0], takenOver: true))
        try await archive.finishDialog(slow, dialogID: "d000", error: "too late")
        try await archive.finishDialog(other, dialogID: "d000", error: nil)
        guard case .dialog(let next, false) = try await archive.claimDialog(other, lease: 60) else {
            Issue.record("the second dialog was not claimable")
            return
        }
        try await archive.finishDialog(other, dialogID: next.dialogID, error: nil)
        #expect(try await archive.leaveCrawl(slow, report: Self.report()) == nil)
        let result = try #require(try await archive.leaveCrawl(other, report: Self.report()))
        #expect(result.status == .complete && result.failures.isEmpty, "the former holder's failure was recorded")
    }

    @Test func aCrawlWhoseWorkersStoppedIsClosedAndANewOneBegins() async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let gone = try await archive.joinCrawl(worker: "gone", scope: "app", lease: 60)
        _ = try await archive.claimListing(gone, lease: 60)
        try await archive.publishListing(gone, dialogs: Self.dialogs(2), users: 1, listingsFailed: 0)
        _ = try await archive.claimDialog(gone, lease: 60)
        await #expect(throws: SharedCrawlError.otherScope(running: "app", asked: "user")) {
            try await archive.joinCrawl(worker: "other", scope: "user", lease: 60)
        }
        // The worker dies: its heartbeat stops, and a minute later (here: at once) its lease has run out.
        try await withClient(archive.database) { client in
            _ = try await client.query("UPDATE crawl_workers SET expires_at = 0").collect()
            _ = try await client.query("UPDATE crawl_leases SET expires_at = 0 WHERE worker_id IS NOT NULL").collect()
        }
        let next = try await archive.joinCrawl(worker: "next", scope: "user", lease: 60)
        #expect(next.began && next.runID != gone.runID)
        let runs = try await archive.runs(limit: 10)
        #expect(runs.map(\.status) == [.running, .interrupted], "\(runs)")
        await #expect(throws: SharedCrawlError.crawlClosed(runID: gone.runID)) {
            try await archive.claimDialog(gone, lease: 1)
        }
    }

    /// Workers that die at random while others heartbeat: a dialog is never claimed while a live worker holds
    /// it, is taken over only from a dead one, and every dialog ends done once; the crawl ends complete.
    @Test(arguments: [1, 2])
    func randomDeathsNeverShareALiveLeaseAndMissNothing(seed: UInt64) async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let count = 80
        // Long enough that a live worker's heartbeat (every 0.3 s) is never late by a whole lease on a loaded
        // machine; a dead worker's dialogs come back this long after its death.
        let lease = 5
        let book = LeaseBook()
        let workers = try await (0..<4).asyncMap { index in
            try await archive.joinCrawl(worker: "w\(index)", scope: "user", lease: lease)
        }
        #expect(try await archive.claimListing(workers[0], lease: lease) == .yours)
        try await archive.publishListing(workers[0], dialogs: Self.dialogs(count), users: 1, listingsFailed: 0)
        let closed = try await withThrowingTaskGroup(of: SharedCrawlResult?.self) { group in
            for (index, membership) in workers.enumerated() {
                group.addTask {
                    var random = SeededRandom(seed: seed &* 31 &+ UInt64(index))
                    // Workers 1 to 3 die holding their n-th dialog (n random, 1 to 8); worker 0 never dies, so
                    // someone is left to take every dialog over.
                    let dieAt = index == 0 ? Int.max : Int(random.next() % 8) + 1
                    var claims = 0
                    return try await withThrowingTaskGroup(of: SharedCrawlResult?.self) { inner in
                        inner.addTask {
                            while !Task.isCancelled, await !book.isDead(index) {
                                try? await Task.sleep(for: .milliseconds(300))
                                if await book.isDead(index) { break }
                                try? await archive.heartbeat(membership, lease: lease)
                            }
                            return nil
                        }
                        defer { inner.cancelAll() }
                        while true {
                            switch try await archive.claimDialog(membership, lease: lease) {
                            case .finished:
                                return try await archive.leaveCrawl(membership, report: Self.report())
                            case .wait:
                                try await Task.sleep(for: .milliseconds(100))
                            case .dialog(let leased, let takenOver):
                                await book.claimed(leased.dialogID, by: index, takenOver: takenOver)
                                try await Task.sleep(for: .milliseconds(Int(random.next() % 15)))
                                claims += 1
                                if claims == dieAt {
                                    await book.die(index)
                                    return nil
                                }
                                try await archive.finishDialog(membership, dialogID: leased.dialogID, error: nil)
                                await book.finished(leased.dialogID, by: index)
                            }
                        }
                    }
                }
            }
            return try await group.reduce(into: [SharedCrawlResult]()) { if let result = $1 { $0.append(result) } }
        }
        let violations = await book.violations
        #expect(violations.isEmpty, "\(violations)")
        #expect(await book.finishedCount == count, "every dialog finished exactly once")
        #expect(await book.takeovers > 0, "no worker died holding a lease: the seed tests nothing")
        let claims = try await withClient(archive.database) { client in
            try await column(client, "SELECT sum(claims)::bigint FROM crawl_leases", as: Int64.self)
        }
        #expect(claims == [Int64(await book.claims)], "the database counts claims no worker was given")
        #expect(closed.count == 1 && closed.first?.status == .complete, "\(closed)")
    }
}

/// What the randomized test's workers did, checked as they do it.
actor LeaseBook {
    private var holders: [String: Int] = [:]
    private var dead: Set<Int> = []
    private var finishes: [String: Int] = [:]
    private(set) var violations: [String] = []

    func isDead(_ worker: Int) -> Bool { dead.contains(worker) }
    func die(_ worker: Int) { dead.insert(worker) }
    private(set) var takeovers = 0
    private(set) var claims = 0

    func claimed(_ dialog: String, by worker: Int, takenOver: Bool) {
        if finishes[dialog] != nil { violations.append("\(dialog) claimed by \(worker) after it was done") }
        switch holders[dialog] {
        case nil where takenOver: violations.append("\(dialog) reported taken over but nobody held it")
        case let holder? where !dead.contains(holder):
            violations.append("\(dialog) claimed by \(worker) while live worker \(holder) held it")
        case .some where !takenOver: violations.append("\(dialog) taken from a dead worker without saying so")
        default: break
        }
        claims += 1
        if takenOver { takeovers += 1 }
        holders[dialog] = worker
    }

    func finished(_ dialog: String, by worker: Int) {
        finishes[dialog, default: 0] += 1
        if finishes[dialog] != 1 { violations.append("\(dialog) finished twice") }
        if holders[dialog] != worker { violations.append("\(dialog) finished by \(worker), not its holder") }
    }

    var finishedCount: Int { finishes.count }
}

extension Range where Bound == Int {
    fileprivate func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
