import Archive
import ArchiveMigration
import ArchivePostgres
import ArchiveSQL
import ArchiveSQLite
import ArchiveTestSupport
import Export
import Foundation
import QuickBlox
import Testing

/// `Migration` between backends on real archives: a SQLite archive crawled from the emulator, with edits,
/// tombstones, hides, a stored file, audit entries and a hold, moved into PostgreSQL and back.
@Suite("migrate: an archive moved between SQLite and PostgreSQL", .enabled(if: PostgresCluster.isEnabled))
struct MigrationTests {
    /// The fixture with what a crawl alone does not make: hides, a stored file, audit entries, a legal hold.
    static func source() async throws -> ExportFixture {
        let fixture = try await ExportFixture.make(messages: 600, dialogs: 6, changes: 80)
        let archive = fixture.archive
        let dialog = try #require(try await archive.liveDialogIDs().first)
        let messages = try await archive.liveMessageIDs(dialogID: dialog)
        #expect(try await archive.recordHidden(messageIDs: Array(messages.prefix(3)), for: 1, at: 1_700_000_000) == 3)
        _ = try await archive.recordDialogHidden(id: dialog, for: 2, at: 1_700_000_100)
        if let file = try await archive.filesToFetch(after: 0, limit: 1).first {
            let path = fixture.path("attachment.bin")
            try Data("an attachment's bytes".utf8).write(to: URL(fileURLWithPath: path))
            let stored = try archive.fileStore.store(copying: path)
            try await archive.recordFetch(
                key: file.file.key,
                outcome: .stored(sha256: stored.sha256, size: stored.size, contentType: "text/plain", source: "test"),
                at: 1_700_000_200)
        }
        try await archive.appendAudit(action: "search", detail: ["query": "from:alice"], at: 1_700_000_300)
        _ = try await archive.addHold(kind: .dialog, target: dialog, reason: "case 7", at: 1_700_000_400)
        return fixture
    }

    static func jsonl(_ archive: any ArchiveReader, _ path: String) async throws -> Data {
        let selection = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = MessageExport(selection: selection, format: .jsonl, raw: true)
        _ = try await OwnThread.run { try await export.run(archive: archive, to: path) }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test func sqliteToPostgresAndBackExportsTheSameBytes() async throws {
        let fixture = try await Self.source()
        defer { fixture.remove() }
        let source = fixture.sqlite
        try FileManager.default.createDirectory(atPath: fixture.path("pg"), withIntermediateDirectories: true)
        let postgres = try #require(try await TestBackend.postgres.create(fixture.path("pg"), 0) as? PostgresArchive)
        let there = try await Migration(source: source, destination: postgres).run()
        let storedCount = try await source.storedFiles().count
        #expect(there.adopted && there.filesCopied == storedCount)
        #expect(there.figures.allSatisfy { $0.matches })
        #expect(try await postgres.identity() == source.identity())
        // The destination was analyzed after the copy: its planner counts the rows it holds.
        let planned = try await postgres.sql.read {
            try $0.fetchInt("SELECT CAST(reltuples AS bigint) FROM pg_class WHERE relname = 'messages'")
        }
        #expect(planned == (try await source.counts().messages))

        let back = try SQLiteArchive.create(at: fixture.path("back.sqlite"))
        let again = try await Migration(source: postgres, destination: back).run()
        #expect(again.figures.map(\.sourceHash) == there.figures.map(\.sourceHash))

        let original = try await Self.jsonl(source, fixture.path("a.jsonl"))
        #expect(!original.isEmpty)
        #expect(try await Self.jsonl(postgres, fixture.path("b.jsonl")) == original)
        #expect(try await Self.jsonl(back, fixture.path("c.jsonl")) == original)
        #expect(try await back.auditEntries() == source.auditEntries())
        #expect(try await back.holds() == source.holds())
        #expect(try await back.runs(limit: 100) == source.runs(limit: 100))
        #expect(try await back.crawlStates() == source.crawlStates())
        #expect(try await postgres.integrityProblems() == [])
        #expect(try await back.integrityProblems() == [])
        // Search works on migrated messages (the word index of each backend was filled).
        let dialogs = try await source.liveDialogIDs()
        let hit = try #require(try await source.messages(dialogID: dialogs[0]).first)
        #expect(try await postgres.messageHit(id: hit.id)?.message == back.messageHit(id: hit.id)?.message)

        // Again: nothing to write, everything skipped, still equal.
        let nothing = try await Migration(source: source, destination: postgres).run()
        #expect(!nothing.adopted && nothing.written == 0 && nothing.filesCopied == 0)
    }

    @Test func aMigrationCutShortFinishesWhenRunAgain() async throws {
        let fixture = try await Self.source()
        defer { fixture.remove() }
        try FileManager.default.createDirectory(atPath: fixture.path("pg"), withIntermediateDirectories: true)
        let postgres = try #require(try await TestBackend.postgres.create(fixture.path("pg"), 0) as? PostgresArchive)
        var cut = Migration(source: fixture.sqlite, destination: postgres)
        cut.batchSize = 50
        cut.stopAfterBatches = 9
        await #expect(throws: MigrationError.stoppedEarly(batches: 9)) { try await cut.run() }
        let partial = try await postgres.counts()
        let whole = try await fixture.archive.counts()
        #expect(partial.messages < whole.messages)

        var resumed = Migration(source: fixture.sqlite, destination: postgres)
        resumed.batchSize = 50
        let report = try await resumed.run()
        #expect(!report.adopted && report.figures.allSatisfy { $0.matches })
        #expect(try await postgres.counts() == whole)
    }

    @Test func aDestinationHoldingAnotherArchiveIsRefused() async throws {
        let fixture = try await ExportFixture.make(messages: 60, dialogs: 2, changes: 0)
        defer { fixture.remove() }
        let other = try await ExportFixture.make(messages: 60, dialogs: 2, changes: 0)
        defer { other.remove() }
        await #expect(throws: MigrationError.self) {
            try await Migration(source: fixture.sqlite, destination: other.sqlite).run()
        }
        #expect(try await other.archive.identity() != fixture.archive.identity())
    }
}
