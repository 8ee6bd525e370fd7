import Archive
import ArchiveTestSupport
import QuickBlox
import Testing

@Suite("Tombstones, membership, runs and crawl outcomes")
struct HistoryTests {
    typealias F = ArchiveFixture

    @Test(arguments: TestBackend.all) func tombstonesKeepContent(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        try await fixture.write([F.message(1, text: "bleibt", offset: 1), F.message(2, text: "geht", offset: 2)])
        let first = try await fixture.archive.tombstoneMessages(ids: [F.objectID(2), F.objectID(99)], at: 500)
        let again = try await fixture.archive.tombstoneMessages(ids: [F.objectID(2)], at: 600)
        #expect(first == 1)
        #expect(again == 0, "the first deletion time is kept")

        let messages = try await fixture.archive.messages(dialogID: F.dialogID)
        #expect(messages.map(\.text) == ["bleibt", "geht"])
        #expect(messages.map(\.deletedAt) == [nil, 500])
        #expect(try await fixture.archive.liveMessageIDs(dialogID: F.dialogID) == [F.objectID(1)])
        let counts = try await fixture.archive.counts()
        #expect(counts.messages == 2)
        #expect(counts.deletedMessages == 1)
    }

    @Test(arguments: TestBackend.all) func aMessageSeenAgainLosesItsTombstone(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        let message = F.message(1, text: "doch noch da")
        try await fixture.write([message])
        try await fixture.archive.tombstoneMessages(ids: [message.id])
        try await fixture.write([message])
        #expect(try await fixture.archive.liveMessageIDs(dialogID: F.dialogID) == [message.id])
    }

    @Test(arguments: TestBackend.all) func membershipHistoryRecordsJoinsAndLeaves(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)  // dialog seen at baseTime with occupants 1, 2, 3
        let t1 = F.baseTime + 3600
        let t2 = F.baseTime + 7200
        try await fixture.archive.storeDialogs(rawItems: [F.dialog(F.dialogID, occupants: [1, 3, 4]).json], at: t1)
        let counts = try await fixture.archive.storeDialogs(
            rawItems: [F.dialog(F.dialogID, occupants: [1, 3, 4, 2]).json], at: t2)
        #expect(counts == UpsertCounts(changed: 1))

        let periods = try await fixture.archive.membership(dialogID: F.dialogID)
        let summary = periods.map { "\($0.userID):\($0.joinedObservedAt)-\($0.leftObservedAt.map(String.init) ?? "")" }
        let base = F.baseTime
        #expect(
            summary == [
                "1:\(base)-", "2:\(base)-\(t1)", "3:\(base)-", "4:\(t1)-", "2:\(t2)-",
            ])
    }

    @Test(arguments: TestBackend.all) func dialogsSeenAgainUnchangedOnlyMoveLastSeen(backend: TestBackend) async throws
    {
        let fixture = try await ArchiveFixture(backend: backend)
        let counts = try await fixture.archive.storeDialogs(rawItems: [F.dialog(F.dialogID).json], at: F.baseTime + 1)
        #expect(counts == UpsertCounts(unchanged: 1))
        #expect(try await fixture.archive.membership(dialogID: F.dialogID).count == 3)
    }

    @Test(arguments: TestBackend.all) func dialogTombstonesCloseMembershipAndKeepMessages(backend: TestBackend)
        async throws
    {
        let fixture = try await ArchiveFixture(backend: backend)
        try await fixture.write([F.message(1, text: "Tschüss")])
        #expect(try await fixture.archive.tombstoneDialog(id: F.dialogID, at: 900))
        #expect(try await !fixture.archive.tombstoneDialog(id: F.dialogID, at: 901))
        #expect(try await fixture.archive.membership(dialogID: F.dialogID).allSatisfy { $0.leftObservedAt == 900 })
        let counts = try await fixture.archive.counts()
        #expect(counts.deletedDialogs == 1)
        #expect(counts.messages == 1)
        #expect(counts.deletedMessages == 0)
    }

    @Test(arguments: TestBackend.all) func usersAreUpsertedWithRawJSON(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        let anna = User(
            id: 1, login: "anna", fullName: "Anna Müller", createdAt: 1, updatedAt: 2, extra: ["website": "x"])
        #expect(try await fixture.archive.storeUsers(rawItems: [anna.wrapped]) == UpsertCounts(new: 1))
        #expect(try await fixture.archive.storeUsers(rawItems: [anna.json]) == UpsertCounts(unchanged: 1))
        var renamed = anna
        renamed.fullName = "Anna Schmidt"
        #expect(try await fixture.archive.storeUsers(rawItems: [renamed.json]) == UpsertCounts(changed: 1))
        let raw = try await fixture.archive.withSnapshot { snapshot in
            var users: [ArchivedUser] = []
            for try await batch in snapshot.users(ids: [1]) { users += batch }
            return users.first?.raw
        }
        #expect(raw == renamed.json.jsonString)
        #expect(try await fixture.archive.counts().users == 1)
    }

    @Test(arguments: TestBackend.all) func runsAreRecorded(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        #expect(try await fixture.archive.updatedSince(scope: "user") == nil)
        let first = try await fixture.archive.beginRun(scope: "user", query: nil, at: 100)
        #expect(try await fixture.archive.runs().first?.status == .running)
        // While no run has completed, edits are read again from the first run's start.
        #expect(try await fixture.archive.updatedSince(scope: "user") == 100)
        try await fixture.archive.finishRun(
            first, status: .complete, counts: RunCounts(dialogs: 2), error: nil, at: 150)

        let second = try await fixture.archive.beginRun(scope: "app", query: nil, at: 200)
        let counts = RunCounts(dialogs: 2, newMessages: 10, editedMessages: 1, requests: 7, retries: 1, bytes: 4096)
        try await fixture.archive.finishRun(second, status: .partial, counts: counts, error: "HTTP 503", at: 260)
        let run = try #require(try await fixture.archive.runs(limit: 1).first)
        let expected = RunRecord(
            id: second, scope: "app", startedAt: 200, endedAt: 260, status: .partial, counts: counts, error: "HTTP 503")
        #expect(run == expected)
        #expect(
            try await fixture.archive.updatedSince(scope: "user") == 100,
            "a partial run after a complete one does not count")
        await #expect(throws: ArchiveError.unknownRun(second + 1)) {
            try await fixture.archive.finishRun(second + 1, status: .complete, counts: RunCounts())
        }
    }

    @Test(arguments: TestBackend.all) func liveDialogIDsLeaveOutTombstones(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        #expect(try await fixture.archive.liveDialogIDs() == [F.dialogID, F.otherDialogID].sorted())
        try await fixture.archive.tombstoneDialog(id: F.otherDialogID)
        #expect(try await fixture.archive.liveDialogIDs() == [F.dialogID])
    }

    @Test(arguments: TestBackend.all) func crawlOutcomesAreKeptNextToTheCursor(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        try await fixture.write([F.message(1, text: "x")])
        try await fixture.archive.recordCrawlOutcome(dialogID: F.dialogID, error: "HTTP 503 after 5 retries", at: 10)
        var state = try #require(try await fixture.archive.crawlState(dialogID: F.dialogID))
        #expect(state.lastError == "HTTP 503 after 5 retries")
        #expect(state.lastErrorAt == 10)
        #expect(state.cursor.dateSent == F.baseTime, "an outcome does not move the cursor")
        try await fixture.archive.recordCrawlOutcome(dialogID: F.dialogID, error: nil, at: 20)
        state = try #require(try await fixture.archive.crawlState(dialogID: F.dialogID))
        #expect(state.lastError == nil)
        #expect(state.lastSuccessAt == 20)
        try await fixture.archive.recordCrawlOutcome(dialogID: F.otherDialogID, error: nil, at: 30)
        #expect(try await fixture.archive.crawlStates().map(\.dialogID) == [F.dialogID, F.otherDialogID].sorted())
    }
}
