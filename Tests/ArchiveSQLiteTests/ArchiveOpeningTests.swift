import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

@Suite("Creating and opening archives")
struct ArchiveOpeningTests {
    @Test func schemaComesFromMigrationsWithBothTokenizers() async throws {
        let fixture = try await ArchiveFixture()
        let (tables, words, trigrams, migrations) = try await fixture.sqlite.pool.read { db in
            (
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'message_words'") ?? "",
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'message_trigrams'") ?? "",
                try SQLiteArchive.migrator.appliedIdentifiers(db)
            )
        }
        for table in [
            "archive_meta", "users", "dialogs", "messages", "message_revisions", "dialog_membership", "crawl_state",
            "runs", "message_words", "message_trigrams", "grdb_migrations",
        ] {
            #expect(tables.contains(table), "missing table \(table)")
        }
        #expect(words.contains("fts5"))
        #expect(words.contains("tokenize='qbarchive_words 2'"))
        #expect(words.contains("prefix='2 3'"))
        #expect(words.contains("content='messages'"))
        #expect(trigrams.contains("tokenize='qbarchive_trigrams 1'"))
        #expect(trigrams.contains("content='messages'"))
        #expect(
            Set(migrations) == [
                "v1", "v2-targeted-runs", "v3-audit-log", "v4-server-counts", "v5-attachment-files",
                "v6-per-user-deletion", "v7-multilingual-words", "v8-erasure", "v9-legal-holds", "v10-stats-rollups",
                "v11-word-rules-2",
            ])
    }

    @Test func indexesAndOnlyTheAuditAndStatsTriggers() async throws {
        let fixture = try await ArchiveFixture()
        let (indexSQL, triggers) = try await fixture.sqlite.pool.read { db in
            (
                try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"),
                try String.fetchAll(db, sql: "SELECT tbl_name || ' ' || name FROM sqlite_master WHERE type = 'trigger'")
            )
        }
        let all = indexSQL.joined(separator: "\n")
        #expect(all.contains(#"ON "messages"("dialog_id", "date_sent", "id")"#))
        #expect(all.contains(#"ON "messages"("sender_id", "date_sent")"#))
        #expect(all.contains(#"ON "messages"("date_sent")"#))
        // The FTS indexes are maintained by explicit statements; the only triggers keep the audit log append-only
        // and mark dialogs whose statistics roll-ups are stale where writes are rare (no insert or update of a
        // message: a trigger there costs each a statement journal).
        #expect(
            Set(triggers) == [
                "audit_log audit_log_append_only_update", "audit_log audit_log_append_only_delete",
                "messages stats_stale_message_delete", "dialogs stats_stale_dialog_type",
                "crawl_state stats_stale_count_insert", "crawl_state stats_stale_count_update",
            ])
    }

    @Test func walSynchronousNormalForeignKeysAndApplicationID() async throws {
        let fixture = try await ArchiveFixture()
        let (journal, synchronous, foreignKeys, applicationID) = try await fixture.sqlite.pool.write { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys"),
                try Int.fetchOne(db, sql: "PRAGMA application_id")
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 1, "1 is NORMAL")
        #expect(foreignKeys == 1)
        #expect(applicationID == SQLiteArchive.applicationID)
    }

    @Test func reopeningIsIdempotentAndKeepsIdentity() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([ArchiveFixture.message(1, text: "Hallo")])
        let identity = try await fixture.archive.identity()
        #expect(identity.createdAt == ArchiveFixture.baseTime)

        for _ in 0..<2 {
            let reopened = try SQLiteArchive.open(at: fixture.sqlite.path)
            #expect(try await reopened.identity() == identity)
            #expect(try await reopened.counts().messages == 1)
            let migrations = try await reopened.pool.read { try SQLiteArchive.migrator.appliedIdentifiers($0) }
            #expect(
                Set(migrations) == [
                    "v1", "v2-targeted-runs", "v3-audit-log", "v4-server-counts", "v5-attachment-files",
                    "v6-per-user-deletion", "v7-multilingual-words", "v8-erasure", "v9-legal-holds",
                    "v10-stats-rollups", "v11-word-rules-2",
                ])
        }
    }

    @Test func openingAMissingFileFailsAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("absent.qbarchive")
        #expect(throws: ArchiveError.missing(path: path)) { try SQLiteArchive.open(at: path) }
        #expect(throws: ArchiveError.missing(path: path)) { try SQLiteArchive.openReadOnly(at: path) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func openingAFileThatIsNotSQLiteFails() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("notes.txt")
        let text = String(repeating: "These are not the messages you are looking for.\n", count: 100)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let error = #expect(throws: ArchiveError.self) { try SQLiteArchive.open(at: path) }
        guard case .notAnArchive(let errorPath, _) = error else {
            Issue.record("expected notAnArchive, got \(String(describing: error))")
            return
        }
        #expect(errorPath == path)
        #expect(error?.errorDescription?.contains("is not a qbarchive archive") == true)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == text, "the file is left untouched")
    }

    @Test func openingAnotherSQLiteDatabaseFails() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("other.sqlite")
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)") }
        try queue.close()
        let error = #expect(throws: ArchiveError.self) { try SQLiteArchive.open(at: path) }
        guard case .notAnArchive = error else {
            Issue.record("expected notAnArchive, got \(String(describing: error))")
            return
        }
        let (tables, journal) = try DatabaseQueue(path: path).read {
            (
                try String.fetchAll($0, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"),
                try String.fetchOne($0, sql: "PRAGMA journal_mode")
            )
        }
        #expect(tables == ["notes"], "no migration ran on a foreign database")
        #expect(journal == "delete", "the foreign database was not switched to WAL")
    }

    @Test func anArchiveFromANewerQbarchiveIsRefused() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.sqlite.pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
        }
        let path = fixture.sqlite.path
        #expect(throws: ArchiveError.newerFormat(path: path)) { try SQLiteArchive.open(at: path) }
        #expect(throws: ArchiveError.newerFormat(path: path)) { try SQLiteArchive.openReadOnly(at: path) }
    }

    /// An archive an older qbarchive wrote (here: v3 — before the server-count columns — with the migrations after
    /// v4 kept, but for v10, whose triggers read v4's columns) is upgraded by a
    /// reader, so searching does not have to wait for the next crawl; its data stays as it was.
    @Test func aReaderUpgradesAnArchiveFromAnOlderQbarchive() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([ArchiveFixture.message(1, text: "Grüße aus München")])
        try await fixture.sqlite.pool.write { db in
            // What v10 made, first: its triggers read the columns v4 added.
            for trigger in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'stats_stale_%'")
            {
                try db.execute(sql: "DROP TRIGGER \(trigger)")
            }
            for table in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'stats_%'")
            {
                try db.execute(sql: "DROP TABLE \(table)")
            }
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v10-stats-rollups'")
            try db.execute(sql: "ALTER TABLE crawl_state DROP COLUMN server_count")
            try db.execute(sql: "ALTER TABLE crawl_state DROP COLUMN server_counted_at")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v4-server-counts'")
        }
        let reader = try SQLiteArchive.openReadOnly(at: fixture.sqlite.path)
        #expect(try await reader.counts().messages == 1)
        let columns = try await reader.pool.read { db in try db.columns(in: "crawl_state").map(\.name) }
        #expect(columns.contains("server_count"))
    }

    @Test func theChangeMarkerMovesWithEveryWriteAndOnlyThen() async throws {
        let fixture = try await ArchiveFixture()
        let empty = try await fixture.archive.changeMarker()
        #expect(try await fixture.archive.changeMarker() == empty)
        try await fixture.write([ArchiveFixture.message(1, text: "one")])
        let one = try await fixture.archive.changeMarker()
        #expect(one != empty)
        try await fixture.write([ArchiveFixture.message(1, text: "one, edited", updatedAt: ArchiveFixture.baseTime + 9)]
        )
        let edited = try await fixture.archive.changeMarker()
        #expect(edited != one)
        let run = try await fixture.archive.beginRun()
        let started = try await fixture.archive.changeMarker()
        #expect(started != edited)
        _ = run
        #expect(try await fixture.archive.messageCountEstimate() == 1)
    }

    @Test func createRefusesAnExistingFile() async throws {
        let fixture = try await ArchiveFixture()
        let path = fixture.sqlite.path
        #expect(throws: ArchiveError.alreadyExists(path: path)) { try SQLiteArchive.create(at: path) }
    }

    @Test func readOnlyOpenReadsButCannotWrite() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([ArchiveFixture.message(1, text: "Grüße aus München")])
        let reader = try SQLiteArchive.openReadOnly(at: fixture.sqlite.path)
        #expect(reader.isReadOnly)
        #expect(try await reader.counts().messages == 1)
        await #expect(throws: DatabaseError.self) {
            try await reader.storeMessages(
                dialogID: ArchiveFixture.dialogID, rawItems: [ArchiveFixture.message(2, text: "nope").json],
                cursor: CrawlCursor())
        }
    }
}
