import ArchiveSQLite
import Crawler
import Foundation
import HummingbirdTesting
import Logging
import QuickBloxClient
import QuickBloxEmulator
import Testing

@testable import Stats

@Suite("qbarchive stats: coverage after real crawls of the emulator")
struct StatsCrawlCoverageTests {
    @Test func aReconcileRecordsServerCountsThatMatchTheArchive() async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 31
        configuration.users = 5
        configuration.dialogs = 8
        configuration.messages = 600
        configuration.apiKey = "k"
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stats-crawl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try SQLiteArchive.create(at: directory.appendingPathComponent("a.sqlite").path)
        var logger = Logger(label: "stats-test")
        logger.logLevel = .critical
        let quiet = logger
        try await emulator.buildApplication(logger: quiet).test(.live) { hooks in
            func crawl(reconcile: Bool) async throws {
                var client = ClientConfiguration(endpoint: "http://localhost:\(hooks.port!)", credentials: .apiKey("k"))
                client.maxRequestsPerSecond = 0
                var options = CrawlOptions()
                options.scope = .app
                options.reconcile = reconcile
                let summary = try await Crawl(
                    client: QuickBloxClient(configuration: client, logger: quiet), archive: archive, options: options,
                    logger: quiet
                ).run()
                #expect(summary.status == .complete)
            }
            try await crawl(reconcile: false)
            let before = try await StatsReport.compute(archive: archive, options: StatsOptions()).coverage
            #expect(before.dialogs > 0)
            #expect(before.notReconciled == before.dialogs, "no reconcile yet: null, not 0")
            #expect(before.entries.allSatisfy { $0.serverCount == nil && $0.status == "not reconciled" })

            await emulator.applyLiveChanges(40)
            try await crawl(reconcile: true)
            let after = try await StatsReport.compute(archive: archive, options: StatsOptions())
            #expect(after.coverage.notReconciled == 0)
            #expect(after.coverage.complete == after.coverage.dialogs, "\(after.coverage.entries)")
            for entry in after.coverage.entries {
                #expect(entry.serverCount == entry.archivedAtCount)
                #expect(entry.serverCount == entry.archived, "nothing arrived after the reconcile")
            }
            #expect(
                after.coverage.entries.reduce(0) { $0 + ($1.serverCount ?? 0) } == after.totals.messages
                    - after.totals.deletedMessages)
        }
    }
}
