import Archive
import ArchivePostgres
import ArchiveTestSupport
import PostgresNIO
import QuickBlox
import Testing

/// The tables after bulk changes: a run that grows the archive leaves it vacuumed and analyzed (a first crawl's
/// searches otherwise check every row's visibility and are planned from no figures at all); a small run does not
/// pay for it.
@Suite(.postgres, .sharedCluster)
struct PostgresSettleTests {
    typealias Fixture = ArchiveFixture

    /// What the server knows of `table`: its estimated rows (-1 before any analysis), how often it was analyzed,
    /// and whether every page was all-visible at its last vacuum.
    static func planned(_ table: String, in location: PostgresLocation) async throws
        -> (rows: Int, analyses: Int, settled: Bool)
    {
        try await withClient(location) { client in
            let rows = try await column(
                client, "SELECT CAST(reltuples AS bigint) FROM pg_class WHERE relname = \(table)", as: Int.self)
            let analyses = try await column(
                client, "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = \(table)", as: Int.self)
            let settled = try await column(
                client, "SELECT relpages > 0 AND relallvisible = relpages FROM pg_class WHERE relname = \(table)",
                as: Bool.self)
            return (rows.first ?? -2, analyses.first ?? -2, settled.first ?? false)
        }
    }

    /// A new archive in its own database holding ``ArchiveFixture/dialogID``.
    static func archive() async throws -> (location: PostgresLocation, archive: PostgresArchive) {
        let location = try await SharedCluster.database()
        let archive = try await PostgresArchive.open(location, now: Fixture.baseTime)
        let dialog = Fixture.dialog(Fixture.dialogID)
        _ = try await archive.storeDialogs([(dialog, dialog.json)], observedAt: Fixture.baseTime)
        return (location, archive)
    }

    /// Stores `count` messages of ``ArchiveFixture/dialogID`` numbered from `first`, as pages of 100.
    static func store(_ archive: PostgresArchive, messages count: Int, from first: Int) async throws {
        for start in stride(from: first, to: first + count, by: 100) {
            let page = (start..<min(start + 100, first + count)).map {
                Fixture.message($0, text: "message \($0) about invoices", offset: $0)
            }
            _ = try await archive.storeMessages(
                dialogID: Fixture.dialogID, rawItems: page.map(\.json), cursor: CrawlCursor().advanced(over: page),
                at: Fixture.baseTime)
        }
    }

    /// Stores `count` messages numbered from `first` inside one run that ends as `status`.
    static func run(
        _ archive: PostgresArchive, messages count: Int, from first: Int, status: RunStatus = .complete
    ) async throws {
        let run = try await archive.beginRun(scope: "app", query: nil, at: Fixture.baseTime)
        try await store(archive, messages: count, from: first)
        try await archive.finishRun(run, status: status, counts: RunCounts(newMessages: count))
    }

    @Test(arguments: [300, 2_500])
    func aRunThatGrowsTheArchiveLeavesItSettled(messages: Int) async throws {
        let (location, archive) = try await Self.archive()
        defer { Task { await archive.close() } }
        #expect(try await Self.planned("messages", in: location).rows == -1)

        try await Self.run(archive, messages: messages, from: 1)
        let first = try await Self.planned("messages", in: location)
        #expect(first.rows == messages && first.settled)

        // A tenth more or less: a run adding 2 % leaves the figures as they were (autovacuum's business)...
        try await Self.run(archive, messages: messages / 50, from: messages + 1)
        #expect(try await Self.planned("messages", in: location) == first)
        // ...one that doubles the archive has it analyzed again.
        try await Self.run(archive, messages: messages, from: 2 * messages + 1)
        let second = try await Self.planned("messages", in: location)
        #expect(second.rows == 2 * messages + messages / 50 && second.settled)
        #expect(second.analyses == first.analyses + 1)
    }

    @Test func anInterruptedRunExitsWithoutSettling() async throws {
        let (location, archive) = try await Self.archive()
        defer { Task { await archive.close() } }
        try await Self.run(archive, messages: 1_000, from: 1, status: .interrupted)
        // No analysis of its own (autovacuum's, on a slow machine, would not count here).
        #expect(try await Self.planned("messages", in: location).analyses == 0, "a signal asks for a prompt exit")
        try await Self.run(archive, messages: 100, from: 1_001, status: .partial)
        let settled = try await Self.planned("messages", in: location)
        #expect(settled.rows == 1_100 && settled.settled)
    }

    /// A worker that stored a dialog's pages leaves: settled when it ended on its own, not when a signal stopped it.
    @Test(arguments: [RunStatus.complete, .partial, .interrupted])
    func aWorkerLeavingACrawlThatGrewTheArchiveSettlesItUnlessInterrupted(status: RunStatus) async throws {
        let (location, archive) = try await Self.archive()
        defer { Task { await archive.close() } }
        let worker = try await archive.joinCrawl(worker: "a", scope: "app", lease: 60)
        #expect(try await archive.claimListing(worker, lease: 60) == .yours)
        let raw: JSONValue = ["_id": .string(Fixture.dialogID), "type": 2]
        try await archive.publishListing(
            worker, dialogs: [LeasedDialog(dialogID: Fixture.dialogID, raw: raw, reader: nil, listers: [])], users: 1,
            listingsFailed: 0)
        guard case .dialog(let leased, _) = try await archive.claimDialog(worker, lease: 60) else {
            Issue.record("no dialog to claim")
            return
        }
        try await Self.store(archive, messages: 700, from: 1)
        try await archive.finishDialog(worker, dialogID: leased.dialogID, error: nil)
        // Counted by the manual analyses (`analyze_count`): autovacuum may analyze and vacuum the table on its own
        // when the machine is slow (a minute's naptime), which moves `reltuples` but not that count.
        let before = try await Self.planned("messages", in: location)
        let report = CrawlWorkerReport(status: status, counts: RunCounts(newMessages: 700), error: nil, endedAt: 0)
        _ = try await archive.leaveCrawl(worker, report: report)
        let after = try await Self.planned("messages", in: location)
        if status == .interrupted {
            #expect(after.analyses == before.analyses)
        } else {
            #expect(after.rows == 700 && after.settled && after.analyses > before.analyses)
        }
    }

    @Test func pagesWrittenOutsideARunAreSettledWhenAsked() async throws {
        let (location, archive) = try await Self.archive()
        defer { Task { await archive.close() } }
        try await archive.settleAfterBulkChange()  // only the dialog's page: nothing to do, nothing thrown
        try await Self.store(archive, messages: 1_000, from: 1)
        #expect(try await Self.planned("messages", in: location).rows == -1)
        try await archive.settleAfterBulkChange()
        let settled = try await Self.planned("messages", in: location)
        #expect(settled.rows == 1_000 && settled.settled)
    }
}
