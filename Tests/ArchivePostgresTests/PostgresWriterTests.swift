import Archive
import ArchivePostgres
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// The PostgreSQL archive's crawl writes, through a real server, compared with what a SQLite archive stores for
/// the same input: the values every export reads must be equal byte for byte.
@Suite(.postgres, .sharedCluster)
struct PostgresWriterTests {
    typealias Fixture = ArchiveFixture
    static let base = ArchiveFixture.baseTime

    @Test func usersAndDialogsAreUpsertedWithMembershipHistory() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let alice = User(id: 1, login: "alice\u{0}hidden", fullName: "Alice", createdAt: 1, updatedAt: 2)
        let users = [alice, User(id: 2, login: "bob", fullName: "Bob", createdAt: 1, updatedAt: 2)]
        let items = users.map { ($0, $0.wrapped) }
        var renamed = alice
        renamed.fullName = "Alice B."
        for (batch, expected) in [
            (items, UpsertCounts(new: 2)), (items, UpsertCounts(unchanged: 2)),
            ([(renamed, renamed.json)], UpsertCounts(changed: 1)),
        ] {
            #expect(try await pair.postgres.storeUsers(batch, observedAt: Self.base + 1) == expected)
            #expect(try await pair.sqlite.storeUsers(batch, observedAt: Self.base + 1) == expected)
        }
        try await pair.expectSameRows(
            "users",
            ["id", "login", "email", "full_name", "created_at", "updated_at", "raw", "first_seen_at", "last_seen_at"],
            order: "id")

        // Occupant 1 leaves and 4 joins; the name changes (changed), the other dialog is seen again (unchanged).
        let moved = Fixture.dialog(Fixture.dialogID, occupants: [2, 3, 4], name: "Team Köln")
        let same = Fixture.dialog(Fixture.otherDialogID)
        let dialogs = [(moved, moved.json), (same, same.json)]
        let postgresCounts = try await pair.postgres.storeDialogs(dialogs, observedAt: Self.base + 60)
        let sqliteCounts = try await pair.sqlite.storeDialogs(dialogs, observedAt: Self.base + 60)
        #expect(postgresCounts == UpsertCounts(changed: 1, unchanged: 1))
        #expect(sqliteCounts == postgresCounts)
        try await pair.expectSameRows(
            "dialogs",
            ["id", "type", "name", "user_id", "occupant_ids", "admin_ids", "raw", "first_seen_at", "last_seen_at"],
            order: "id")
        try await pair.expectSameRows(
            "dialog_membership", ["id", "dialog_id", "user_id", "joined_observed_at", "left_observed_at"],
            order: "id")
        let left = try await pair.postgresColumn(
            "SELECT user_id FROM dialog_membership WHERE left_observed_at = \(Self.base + 60)", as: Int.self)
        #expect(left == [1])
    }

    @Test func pagesInsertReviseRefreshAndTouchAsSQLiteDoes() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let photo = Attachment(type: "image", id: "77", uid: "f00d", name: "cat.png", size: 10)
        let first = [
            Fixture.message(1, text: "Ünïcode meeting at noon", attachments: [photo], custom: ["tag": "x"]),
            Fixture.message(2, text: "nul\u{0}inside", offset: 1),
            Fixture.message(3, text: nil, offset: 2),
        ]
        var counts = try await pair.write(first)
        #expect(counts.postgres == PageCounts(new: 3) && counts.sqlite == counts.postgres)
        counts = try await pair.write(first, at: Self.base + 10)
        #expect(counts.postgres == PageCounts(unchanged: 3) && counts.sqlite == counts.postgres)

        // An edit, a read-ids-only change and (next page) an older copy of the edited message.
        var edited = first[0]
        edited.text = "rescheduled to tomorrow"
        edited.updatedAt = Self.base + 100
        var read = first[1]
        read.readIDs = [1, 2]
        read.updatedAt = Self.base + 100
        counts = try await pair.write([edited, read, first[2]], at: Self.base + 20)
        #expect(counts.postgres == PageCounts(edited: 1, unchanged: 2) && counts.sqlite == counts.postgres)
        counts = try await pair.write([first[0]], at: Self.base + 30)
        #expect(counts.postgres == PageCounts(unchanged: 1) && counts.sqlite == counts.postgres)

        try await pair.expectSameRows(
            "messages", WriterPair.messageColumns, blobs: ["content_hash"], order: "rowid")
        try await pair.expectSameRows(
            "message_revisions", WriterPair.revisionColumns, blobs: ["content_hash"], order: "id")
        try await pair.expectSameRows(
            "attachment_files", ["id", "key", "uid", "blob_id", "name", "type", "declared_size", "first_seen_at"],
            order: "id")
        try await pair.expectSameRows(
            "crawl_state", ["dialog_id", "watermark_date_sent", "watermark_ids", "checked_updated_at", "changed_at"],
            order: "dialog_id")

        let id1 = Fixture.objectID(1)
        #expect(
            try await pair.postgresColumn(
                "SELECT text FROM message_revisions WHERE message_id = \(id1)", as: String.self)
                == ["Ünïcode meeting at noon"])
        #expect(try await pair.postgresColumn("SELECT edited FROM messages WHERE id = \(id1)", as: Int.self) == [1])
        let found = try await pair.postgresColumn(
            "SELECT m.id FROM messages m JOIN message_words w USING (date_key) WHERE w.words @@ 'tomorrow'::tsquery",
            as: String.self)
        #expect(found == [id1])
        let gone = try await pair.postgresColumn(
            "SELECT m.id FROM messages m JOIN message_words w USING (date_key) WHERE w.words @@ 'noon'::tsquery",
            as: String.self)
        #expect(gone.isEmpty)
        // The text of message 2 holds U+FFFD where the sender put U+0000, as SQLite's; raw keeps the escape.
        let id2 = Fixture.objectID(2)
        #expect(
            try await pair.postgresColumn("SELECT text FROM messages WHERE id = \(id2)", as: String.self)
                == ["nul\u{FFFD}inside"])
        let raw = try await pair.postgresColumn("SELECT raw FROM messages WHERE id = \(id2)", as: String.self)
        #expect(raw.first?.contains("nul\\u0000inside") == true)
        #expect(try await pair.postgres.integrityProblems() == [])
    }

    /// A message's words live in `message_words` under its `date_key`: they follow a `date_sent` a crawl rewrites
    /// (the key changes with it), an edit's new text, and a text that goes; a message without text has no row.
    @Test func wordsFollowTheKeyAndTheText() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        var first = Fixture.message(1, text: "alpha beta")
        var second = Fixture.message(2, text: "gamma", offset: 1)
        let third = Fixture.message(3, text: nil, offset: 2)
        _ = try await pair.write([first, second, third])
        // Moved in time without a change of text (refreshed), then moved again with a new text (edited).
        first.dateSent = Self.base + 7_200
        first.updatedAt = Self.base + 100
        _ = try await pair.write([first], at: Self.base + 10)
        let refreshed = try await pair.postgresColumn(
            "SELECT m.id || ' ' || w.words::text FROM messages m JOIN message_words w USING (date_key)", as: String.self
        )
        #expect(
            refreshed.sorted() == ["\(Fixture.objectID(1)) 'alpha':1 'beta':2", "\(Fixture.objectID(2)) 'gamma':1"])
        first.dateSent = Self.base + 86_400
        first.text = "delta"
        first.updatedAt = Self.base + 200
        second.text = nil
        second.updatedAt = Self.base + 200
        let counts = try await pair.write([first, second], at: Self.base + 20)
        #expect(counts.postgres.edited == 2, "\(counts)")
        let words = try await pair.postgresColumn(
            """
            SELECT m.id || ' ' || COALESCE(w.words::text, '∅') FROM messages m
            LEFT JOIN message_words w USING (date_key) ORDER BY m.id
            """, as: String.self)
        #expect(
            words == [
                "\(Fixture.objectID(1)) 'delta':1", "\(Fixture.objectID(2)) ∅", "\(Fixture.objectID(3)) ∅",
            ])
        #expect(try await pair.postgresColumn("SELECT count(*) FROM message_words", as: Int.self) == [1])
        try await pair.expectSameRows("messages", WriterPair.messageColumns, blobs: ["content_hash"], order: "rowid")
        #expect(try await pair.postgres.integrityProblems() == [])
    }

    @Test func foldedTextAndWordsFollowTheText() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        try await pair.write([Fixture.message(1, text: "Straße"), Fixture.message(2, text: "plain", offset: 1)])
        let folded = try await pair.postgresColumn(
            "SELECT COALESCE(text_folded, '∅') FROM messages ORDER BY rowid", as: String.self)
        #expect(folded == ["strasse", "∅"])
        // A tampered vector is reported.
        try await withClient(pair.location) { client in
            _ = try await client.query(
                """
                UPDATE message_words SET words = 'other'::tsvector
                WHERE date_key = (SELECT date_key FROM messages WHERE text = 'plain')
                """)
        }
        #expect(
            try await pair.postgres.integrityProblems() == [
                "message \(Fixture.objectID(2)): words are not the tokens of its text"
            ])
    }

    @Test func aPageWithAnotherDialogsMessageWritesNothing() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let stray = Fixture.message(2, text: "elsewhere", dialogID: Fixture.otherDialogID)
        let items = [Fixture.message(1, text: "here"), stray].map { ($0, $0.json) }
        await #expect(throws: ArchiveError.self) {
            try await pair.postgres.storeMessages(
                items, dialogID: Fixture.dialogID, cursor: CrawlCursor(dateSent: 1), observedAt: Self.base,
                indexFiles: true)
        }
        #expect(try await pair.postgresColumn("SELECT count(*) FROM messages", as: Int.self) == [0])
        #expect(try await pair.postgresColumn("SELECT count(*) FROM crawl_state", as: Int.self) == [0])
    }

    @Test func tombstonesAndHides() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let messages = (1...3).map { Fixture.message($0, text: "m\($0)", offset: $0) }
        try await pair.write(messages)
        let ids = messages.map(\.id)
        let evidence = DeletionEvidence(absentFrom: [3, 1], readers: 2)
        for archive in [pair.postgres as any WriterActs, pair.sqlite as any WriterActs] {
            #expect(
                try await archive.tombstoneMessages(ids: [ids[0], ids[0], "unknown"], evidence: evidence, at: 5) == 1)
            #expect(try await archive.tombstoneMessages(ids: [ids[0]], evidence: nil, at: 6) == 0)
            #expect(try await archive.recordHidden(messageIDs: [ids[1], ids[0]], for: 3, at: 7) == 1)
            #expect(try await archive.recordHidden(messageIDs: [ids[1]], for: 1, at: 8) == 1)
            try await archive.forgetHidden(messageIDs: [ids[1]], for: 3)
            #expect(try await archive.recordDialogHidden(id: Fixture.otherDialogID, for: 2, at: 9))
            #expect(try await !archive.recordDialogHidden(id: Fixture.otherDialogID, for: 2, at: 9))
            // A hide recorded by another run stays when this run's (at 12) are withdrawn.
            #expect(try await archive.recordDialogHidden(id: Fixture.otherDialogID, for: 4, at: 12))
            #expect(try await archive.recordDialogHidden(id: Fixture.otherDialogID, for: 5, at: 12))
            #expect(try await archive.forgetDialogHides(id: Fixture.otherDialogID, recordedAt: 12) == 2)
            #expect(try await archive.forgetDialogHides(id: Fixture.otherDialogID, recordedAt: 12) == 0)
            #expect(try await archive.tombstoneDialog(id: Fixture.otherDialogID, evidence: evidence, at: 10))
            #expect(try await !archive.tombstoneDialog(id: Fixture.otherDialogID, evidence: evidence, at: 11))
        }
        try await pair.expectSameRows(
            "messages", WriterPair.messageColumns, blobs: ["content_hash"], order: "rowid")
        try await pair.expectSameRows("message_hides", ["message_id", "user_id", "observed_at"], order: "message_id")
        try await pair.expectSameRows(
            "dialogs", ["id", "deleted_at", "deleted_evidence", "hidden_for"], order: "id")
        try await pair.expectSameRows("dialog_hides", ["dialog_id", "user_id", "observed_at"], order: "user_id")
        #expect(try await pair.postgresColumn("SELECT user_id FROM dialog_hides", as: Int.self) == [2])
        try await pair.expectSameRows(
            "dialog_membership", ["id", "dialog_id", "user_id", "joined_observed_at", "left_observed_at"],
            order: "id")
        // Seen again, a tombstoned message loses its tombstone.
        try await pair.write([messages[0]], at: Self.base + 50)
        try await pair.expectSameRows(
            "messages", WriterPair.messageColumns, blobs: ["content_hash"], order: "rowid")
    }

    @Test func runsCrawlStateAndFiles() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let file = Attachment(type: "file", id: "9", uid: "beef", name: "a.pdf", size: 3)
        try await pair.write([Fixture.message(1, text: "see file", attachments: [file])])
        let key = try #require(AttachmentKey.of(file))
        for archive in [pair.postgres as any WriterActs, pair.sqlite as any WriterActs] {
            #expect(try await archive.closeAbandonedRuns(reason: "old", at: 1) == 0)
            let run = try await archive.beginRun(scope: "app", query: nil, at: 100)
            let stale = try await archive.beginRun(scope: "user", query: "text:x", at: 101)
            try await archive.finishRun(
                run, status: .complete, counts: RunCounts(dialogs: 2, newMessages: 3), error: nil, at: 200)
            #expect(try await archive.closeAbandonedRuns(reason: "died", at: 300) == 1)
            await #expect(throws: ArchiveError.unknownRun(stale + 100)) {
                try await archive.finishRun(stale + 100, status: .failed, counts: RunCounts(), error: "x", at: 1)
            }
            try await archive.recordCrawlOutcome(dialogID: Fixture.dialogID, error: "boom", at: 400)
            try await archive.recordCrawlOutcome(dialogID: Fixture.otherDialogID, error: nil, at: 401)
            try await archive.recordServerCount(dialogID: Fixture.dialogID, count: 7, at: 402)
            try await archive.recordFetch(
                key: key, outcome: .stored(sha256: "ab", size: 3, contentType: "application/pdf", source: "blob"),
                at: 500)
            #expect(try await archive.requeueFiles(sha256: ["ab", "ab"]) == 1)
            try await archive.recordFetch(key: key, outcome: .failed(reason: "503", attempts: 2), at: 501)
            try await archive.markFilesUnindexed()
            #expect(try await archive.indexFilesIfNeeded(at: 600) == 1)
            #expect(try await archive.indexFilesIfNeeded(at: 601) == nil)
        }
        try await pair.expectSameRows(
            "runs", ["id", "scope", "started_at", "ended_at", "status", "dialogs", "messages_new", "error", "query"],
            order: "id")
        try await pair.expectSameRows(
            "crawl_state",
            ["dialog_id", "last_success_at", "last_error", "last_error_at", "changed_at", "server_count"],
            order: "dialog_id")
        try await pair.expectSameRows(
            "attachment_files",
            ["id", "key", "status", "sha256", "size", "attempts", "last_error", "last_attempt_at", "fetched_at"],
            order: "id")
    }

    @Test func auditChainMatchesSQLite() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let detail: JSONValue = ["query": "from:alice", "count": 3, "nested": ["b": 1, "a": "\u{0}"]]
        let first = try await pair.postgres.appendAudit(action: "export", detail: detail, at: 1_000)
        let second = try await pair.postgres.appendAudit(action: "search", detail: [:], at: 1_001)
        let liteFirst = try await pair.sqlite.appendAudit(action: "export", detail: detail, at: 1_000)
        let liteSecond = try await pair.sqlite.appendAudit(action: "search", detail: [:], at: 1_001)
        #expect(first.previousHash == nil)
        #expect(second.previousHash == first.hash)
        #expect(first == liteFirst)
        #expect(second == liteSecond)
        try await pair.expectSameRows(
            "audit_log", ["id", "at", "action", "detail", "previous_hash", "hash"], blobs: ["previous_hash", "hash"],
            order: "id")
    }

    /// What a PostgreSQL archive leaves to PostgreSQL's own tools is refused saying which (erasure and imports
    /// are written now: ErasureConformanceTests, ArchiveMigrationTests).
    @Test func backupIsRefusedNamingPostgreSQLsTools() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        await #expect {
            _ = try await pair.postgres.backup(to: "/tmp/never-written.sqlite", replace: false)
        } throws: { error in
            (error as? ArchiveError)?.errorDescription?.contains("pg_dump") == true
        }
    }
}

/// The writer acts both archives implement, so one test body drives both (PostgresArchive does not conform to
/// `ArchiveWriter` yet).
protocol WriterActs: Sendable {
    func tombstoneMessages(ids: [String], evidence: DeletionEvidence?, at time: Int) async throws -> Int
    func tombstoneDialog(id: String, evidence: DeletionEvidence?, at time: Int) async throws -> Bool
    func recordHidden(messageIDs: [String], for user: Int, at time: Int) async throws -> Int
    func forgetHidden(messageIDs: [String], for user: Int) async throws
    func recordDialogHidden(id: String, for user: Int, at time: Int) async throws -> Bool
    func forgetDialogHides(id: String, recordedAt time: Int) async throws -> Int
    func beginRun(scope: String?, query: String?, at time: Int) async throws -> Int64
    func finishRun(_ id: Int64, status: RunStatus, counts: RunCounts, error: String?, at time: Int) async throws
    func closeAbandonedRuns(reason: String, at time: Int) async throws -> Int
    func recordCrawlOutcome(dialogID: String, error: String?, at time: Int) async throws
    func recordServerCount(dialogID: String, count: Int, at time: Int) async throws
    func recordFetch(key: String, outcome: FetchOutcome, at time: Int) async throws
    func requeueFiles(sha256: [String]) async throws -> Int
    func markFilesUnindexed() async throws
    func indexFilesIfNeeded(at time: Int) async throws -> Int?
}

extension PostgresArchive: WriterActs {}
extension SQLiteArchive: WriterActs {}
