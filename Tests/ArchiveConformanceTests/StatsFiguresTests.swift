import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import Testing

@testable import Stats

@Suite("qbarchive stats: exact figures of a hand-made archive")
struct StatsFiguresTests {
    @Test(arguments: TestBackend.all) func totalsCountEverythingAndDeletionsApart(backend: TestBackend) async throws {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions())
        let totals = report.totals
        #expect(totals.users == 3)
        #expect(totals.senders == 3)
        #expect(
            totals.dialogs
                == StatsReport.DialogTotals(total: 3, public: 1, group: 1, private: 1, other: 0, deleted: 0))
        #expect(totals.messages == 11)
        #expect(totals.deletedMessages == 1)
        #expect(totals.editedMessages == 1)
        #expect(totals.edits == 2)
        #expect(totals.messagesWithAttachments == 2)
        #expect(totals.attachments == 3)
        #expect(
            totals.attachmentsByType == [
                .init(type: "image", attachments: 2), .init(type: "file", attachments: 1),
            ])
        #expect(report.query == nil)
    }

    @Test(arguments: TestBackend.all) func dailyBucketsAreUTCDaysWithEmptyDaysFilledIn(backend: TestBackend)
        async throws
    {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(period: .day))
        #expect(report.volume.count == 13, "2024-02-29 … 2024-03-12")
        #expect(
            report.volume.first
                == .init(label: "2024-02-29", start: "2024-02-29T00:00:00Z", messages: 1, deleted: 0, senders: 1))
        let byLabel = Dictionary(uniqueKeysWithValues: report.volume.map { ($0.label, $0) })
        #expect(byLabel["2024-03-01"]?.messages == 0)
        #expect(
            byLabel["2024-03-04"]
                == .init(label: "2024-03-04", start: "2024-03-04T00:00:00Z", messages: 8, deleted: 0, senders: 2))
        #expect(
            byLabel["2024-03-05"]
                == .init(label: "2024-03-05", start: "2024-03-05T00:00:00Z", messages: 1, deleted: 1, senders: 1))
        #expect(byLabel["2024-03-12"]?.messages == 1)
        #expect(report.volume.map(\.messages).reduce(0, +) == 11)

        let active = Dictionary(uniqueKeysWithValues: report.dailyActiveSenders.map { ($0.date, $0.senders) })
        #expect(report.dailyActiveSenders.count == 13)
        #expect(active["2024-02-29"] == 1)
        #expect(active["2024-03-04"] == 2)
        #expect(active["2024-03-05"] == 1)
        #expect(active["2024-03-06"] == 0)
        #expect(active["2024-03-12"] == 1)
    }

    @Test(arguments: TestBackend.all) func weeksAreISOWeeksFromMondayAndMonthsCalendarMonths(backend: TestBackend)
        async throws
    {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let weeks = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(period: .week))
        #expect(
            weeks.volume == [
                .init(label: "2024-W09", start: "2024-02-26T00:00:00Z", messages: 1, deleted: 0, senders: 1),
                .init(label: "2024-W10", start: "2024-03-04T00:00:00Z", messages: 9, deleted: 1, senders: 3),
                .init(label: "2024-W11", start: "2024-03-11T00:00:00Z", messages: 1, deleted: 0, senders: 1),
            ])
        let months = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(period: .month))
        #expect(
            months.volume == [
                .init(label: "2024-02", start: "2024-02-01T00:00:00Z", messages: 1, deleted: 0, senders: 1),
                .init(label: "2024-03", start: "2024-03-01T00:00:00Z", messages: 10, deleted: 1, senders: 3),
            ])
        #expect(months.period == .month)
    }

    @Test(arguments: TestBackend.all) func hourOfWeekCellsAreUTCWithMondayFirst(backend: TestBackend) async throws {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions())
        #expect(report.hourOfWeek.count == 7 && report.hourOfWeek.allSatisfy { $0.count == 24 })
        #expect(report.hourOfWeek[0][9] == 6, "Monday 09:00–10:00: p1–p4, g2, g3")
        #expect(report.hourOfWeek[0][10] == 1)
        #expect(report.hourOfWeek[0][11] == 1)
        #expect(report.hourOfWeek[1][11] == 1, "Tuesday 2024-03-12 11:00")
        #expect(report.hourOfWeek[1][23] == 1, "the deleted message still counts")
        #expect(report.hourOfWeek[3][23] == 1, "Thursday 2024-02-29 23:59:59")
        #expect(report.hourOfWeek.flatMap { $0 }.reduce(0, +) == 11)
    }

    @Test(arguments: TestBackend.all) func topSendersAndDialogsCarryNames(backend: TestBackend) async throws {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(top: 2))
        #expect(
            report.topSenders == [
                .init(id: 1, login: "alice", fullName: "Alice Martin", label: "Alice Martin", messages: 5),
                .init(id: 2, login: "bob", fullName: "Bob Stone", label: "Bob Stone", messages: 4),
            ])
        #expect(
            report.topDialogs == [
                .init(
                    id: StatsFixture.privateID, name: nil, type: "private",
                    participants: ["Alice Martin", "Bob Stone"],
                    label: "Alice Martin & Bob Stone", messages: 7),
                .init(
                    id: StatsFixture.groupID, name: StatsFixture.hostile, type: "group", participants: [],
                    label: StatsFixture.hostile, messages: 4),
            ])
    }

    @Test(arguments: TestBackend.all) func firstReplyMedianAndP90AreNearestRank(backend: TestBackend) async throws {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions())
        // Delays 300, 600, 3600, 691200: median rank ⌈0.5·4⌉ = 2, p90 rank ⌈0.9·4⌉ = 4.
        #expect(report.firstReply == .init(replies: 4, medianSeconds: 600, p90Seconds: 691_200))
        let march4 = try await StatsReport.compute(
            archive: fixture.archive, options: StatsOptions(query: try fixture.query("date in 2024-03-04")))
        // 300, 600, 3600: ranks 2 and 3.
        #expect(march4.firstReply == .init(replies: 3, medianSeconds: 600, p90Seconds: 3600))
    }

    @Test(arguments: TestBackend.all) func coverageComparesTheReconcileCountWithTheArchiveThen(backend: TestBackend)
        async throws
    {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let coverage = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions()).coverage
        #expect(coverage.dialogs == 3)
        #expect(coverage.complete == 2)
        #expect(coverage.notReconciled == 1)
        #expect(coverage.behind == 0 && coverage.ahead == 0 && coverage.missing == 0)
        let entries = Dictionary(uniqueKeysWithValues: coverage.entries.map { ($0.id, $0) })
        let counted = "2024-03-13T03:20:10Z"
        #expect(
            entries[StatsFixture.privateID]
                == .init(
                    id: StatsFixture.privateID, name: nil, type: "private", dialogDeleted: false, serverCount: 6,
                    countedAt: counted, archivedAtCount: 6, archived: 7, deleted: 0, status: "complete"))
        #expect(
            entries[StatsFixture.groupID]
                == .init(
                    id: StatsFixture.groupID, name: StatsFixture.hostile, type: "group", dialogDeleted: false,
                    serverCount: nil, countedAt: nil, archivedAtCount: nil, archived: 3, deleted: 1,
                    status: "not reconciled"))
        #expect(entries[StatsFixture.publicID]?.serverCount == 0)
        #expect(entries[StatsFixture.publicID]?.status == "complete")
    }

    @Test(arguments: TestBackend.all) func aQueryRestrictsEveryFigure(backend: TestBackend) async throws {
        let fixture = try await StatsFixture.make(backend: backend)
        defer { fixture.remove() }
        let alice = try await StatsReport.compute(
            archive: fixture.archive, options: StatsOptions(query: try fixture.query("from:alice")))
        #expect(alice.query == "from:alice")
        #expect(alice.totals.messages == 5)
        #expect(alice.totals.users == 1 && alice.totals.senders == 1)
        #expect(alice.totals.dialogs.total == 2 && alice.totals.dialogs.public == 0)
        #expect(alice.totals.attachments == 2 && alice.totals.deletedMessages == 0)
        #expect(alice.topSenders.map(\.id) == [1])
        #expect(alice.topDialogs.map(\.messages) == [4, 1])
        #expect(alice.firstReply.replies == 0 && alice.firstReply.medianSeconds == nil)
        #expect(alice.hourOfWeek.flatMap { $0 }.reduce(0, +) == 5)
        #expect(Set(alice.coverage.entries.map(\.id)) == [StatsFixture.privateID, StatsFixture.groupID])

        let privateOnly = try await StatsReport.compute(
            archive: fixture.archive, options: StatsOptions(query: try fixture.query("dialog_type:private")))
        #expect(privateOnly.totals.messages == 7)
        #expect(privateOnly.totals.dialogs.total == 1 && privateOnly.totals.dialogs.private == 1)
        #expect(privateOnly.firstReply.replies == 4)
        #expect(privateOnly.coverage.entries.map(\.id) == [StatsFixture.privateID])

        let deleted = try await StatsReport.compute(
            archive: fixture.archive, options: StatsOptions(query: try fixture.query("deleted = true")))
        #expect(deleted.totals.messages == 1 && deleted.totals.deletedMessages == 1)

        let nobody = try fixture.query("from:nobody")
        await #expect(throws: QueryError.self) {
            _ = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(query: nobody))
        }
    }

    @Test(arguments: TestBackend.all) func anEmptyArchiveHasZerosAndNoPeriods(backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "stats-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await backend.create(directory.path, ArchiveTime.now())
        let report = try await StatsReport.compute(
            archive: try await backend.openReader(directory.path), options: StatsOptions())
        #expect(report.totals.messages == 0 && report.volume.isEmpty && report.topSenders.isEmpty)
        #expect(report.firstReply == .init(replies: 0, medianSeconds: nil, p90Seconds: nil))
        #expect(report.table().contains("no messages"))
        #expect(StatsChart.all(report).count == 5)
    }
}
