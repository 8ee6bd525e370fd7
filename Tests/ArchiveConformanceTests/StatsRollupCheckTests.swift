import Archive
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// Roll-ups that went wrong by themselves (a bug, a hand edit, a damaged page) are found by comparing the report
/// with the report read from every message, and only a rebuild mends them: a refresh moves stale dialogs' shares
/// and keeps whatever else the tables hold.
@Suite("Stats roll-ups: found wrong, rebuilt right")
struct StatsRollupCheckTests {
    @Test(arguments: TestBackend.all)
    func wrongRollupsAreFoundAndRebuilt(backend: TestBackend) async throws {
        try await History.withArchive(backend, seed: 5) { archive, history in
            let start = StatsRollupTests.start
            for step in 0..<30 { _ = try await history.step(archive, at: start + 100 * step) }
            try await archive.settleAfterBulkChange()
            #expect(try await archive.statisticsRollupDisagreements() == [])
            let sql = try #require((archive as? any SQLArchiveReading)?.sql)

            // A sum gone wrong: found, and kept by a refresh.
            try await sql.write { try $0.execute("UPDATE stats_hours SET messages = messages + 1") }
            let sums = try await archive.statisticsRollupDisagreements()
            #expect(sums.contains("hourOfWeek"), "\(sums)")
            try await archive.settleAfterBulkChange()
            #expect(try await archive.statisticsRollupDisagreements() == sums)
            #expect(try await archive.rebuildStatistics() == history.dialogs.count)
            #expect(try await archive.statisticsRollupDisagreements() == [])

            // A dialog's stored share gone wrong: it shows once the dialog is stale (its stored share is taken away),
            // and a refresh moves the error into the sums.
            try await sql.write { connection in
                try connection.execute(
                    """
                    UPDATE stats_dialog_senders SET messages = messages + 3
                    WHERE dialog_id = (SELECT MIN(dialog_id) FROM stats_dialog_senders)
                    """)
            }
            #expect(try await archive.statisticsRollupDisagreements() == [], "not read while the dialog is fresh")
            try await sql.write { connection in
                try connection.execute(
                    "INSERT INTO stats_stale (dialog_id) SELECT MIN(dialog_id) FROM stats_dialog_senders")
            }
            #expect(try await archive.statisticsRollupDisagreements().contains("topSenders"))
            try await archive.settleAfterBulkChange()
            #expect(try await archive.statisticsRollupDisagreements().contains("topSenders"))
            _ = try await archive.rebuildStatistics()
            #expect(try await archive.statisticsRollupDisagreements() == [])
            var reference = StatisticsRequest(bucket: .month, top: 3)
            let rolled = try await archive.statistics(reference)
            reference.readsRollups = false
            #expect(rolled == (try await archive.statistics(reference)))
        }
    }

    /// `qbarchive check` runs while crawls write: pages stored and refreshes run during the comparison never
    /// make it report roll-ups that are right as wrong (both reports are read in one transaction).
    @Test(arguments: TestBackend.all)
    func noDisagreementWhileWriting(backend: TestBackend) async throws {
        try await History.withArchive(backend, seed: 9) { archive, history in
            let start = StatsRollupTests.start
            let pages = (0..<60).map { history.page(at: start + $0) }
            try await withThrowingTaskGroup(of: [[String]].self) { group in
                group.addTask {
                    for (index, page) in pages.enumerated() {
                        try await archive.storeMessages(
                            dialogID: page.dialogID, rawItems: page.messages.map(\.json), cursor: nil, at: start + index
                        )
                        if index % 10 == 9 { try await archive.settleAfterBulkChange() }
                    }
                    return []
                }
                group.addTask {
                    var found: [[String]] = []
                    for _ in 0..<12 { found.append(try await archive.statisticsRollupDisagreements()) }
                    return found
                }
                for try await found in group {
                    let wrong = found.filter { !$0.isEmpty }
                    #expect(wrong.isEmpty, "\(backend): \(wrong)")
                }
            }
        }
    }
}
