import ArchiveTestSupport
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

@Suite("Writing pages")
struct PageWriteTests {
    typealias F = ArchiveFixture

    @Test func writingTheSamePageTwiceAddsNothing() async throws {
        let fixture = try await ArchiveFixture()
        let page = (1...5).map { F.message($0, text: "Nachricht \($0) 👋", offset: $0) }
        let first = try await fixture.write(page)
        #expect(first == PageCounts(new: 5))
        let second = try await fixture.write(page, at: F.baseTime + 600)
        #expect(second == PageCounts(unchanged: 5))

        let messages = try await fixture.archive.messages(dialogID: F.dialogID)
        #expect(messages.map(\.id) == page.map(\.id))
        #expect(messages.allSatisfy { $0.firstSeenAt == F.baseTime && $0.lastSeenAt == F.baseTime + 600 })
        #expect(try await fixture.archive.counts().revisions == 0)
        let indexed = try await fixture.sqlite.pool.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM message_words('nachricht')")
        }
        #expect(indexed == 5, "each message is indexed once")
    }

    @Test func rawKeepsWhatTheServerSentIncludingUnknownKeys() async throws {
        let fixture = try await ArchiveFixture()
        let raw: JSONValue = [
            "_id": .string(F.objectID(7)), "chat_dialog_id": .string(F.dialogID), "message": "C++ vs. C#",
            "date_sent": 1_709_294_400, "sender_id": 2, "recipient_id": nil, "read_ids": [2], "delivered_ids": [2],
            "attachments": [["type": "image", "id": 47863]], "priority": "high", "new_api_field": ["x": 1],
        ]
        try await fixture.archive.storeMessages(dialogID: F.dialogID, rawItems: [raw], cursor: CrawlCursor())
        let stored = try #require(try await fixture.archive.messageHistory(id: F.objectID(7))).current
        #expect(stored.raw == raw.jsonString)
        #expect(stored.customJSON == #"{"new_api_field":{"x":1},"priority":"high"}"#)
        #expect(stored.attachmentsJSON == #"[{"id":"47863","type":"image"}]"#)
        #expect(stored.recipientID == nil)
        #expect(try stored.decoded().text == "C++ vs. C#")
    }

    @Test func anEditMakesOneRevisionAndMovesTheWordIndex() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([F.message(1, text: "Treffen um acht im Biergarten")])
        let edited = F.message(1, text: "Treffen um neun im Café", updatedAt: F.baseTime + 300)
        let counts = try await fixture.write([edited], at: F.baseTime + 400)
        #expect(counts == PageCounts(edited: 1))
        // Seen again after the edit: still exactly one revision.
        #expect(try await fixture.write([edited], at: F.baseTime + 500) == PageCounts(unchanged: 1))

        let history = try #require(try await fixture.archive.messageHistory(id: F.objectID(1)))
        #expect(history.current.text == "Treffen um neun im Café")
        #expect(history.current.edited == 1)
        #expect(history.revisions.count == 1)
        let revision = try #require(history.revisions.first)
        #expect(revision.revision == 1)
        #expect(revision.text == "Treffen um acht im Biergarten")
        #expect(revision.observedAt == F.baseTime)
        #expect(revision.supersededAt == F.baseTime + 400)
        #expect(revision.updatedAt == F.baseTime)
        #expect(revision.raw.contains("Biergarten"))

        #expect(try await fixture.find("neun") == [F.objectID(1)])
        #expect(try await fixture.find("biergarten").isEmpty)
        #expect(try await fixture.find(#"message ctn "iergar""#).isEmpty)
        #expect(try await fixture.find(#"message ctn "um neun""#) == [F.objectID(1)])
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test func editsOfAttachmentsOrCustomParametersAreRevisionsToo() async throws {
        let fixture = try await ArchiveFixture()
        let photo = Attachment(type: "image", id: "47863", url: "https://example.com/b/47863")
        try await fixture.write([F.message(1, text: "Foto", attachments: [photo], custom: ["tag": "urlaub"])])
        var moved = photo
        moved.url = "https://example.com/b/47864"
        let attachmentEdit = try await fixture.write([
            F.message(1, text: "Foto", updatedAt: F.baseTime + 10, attachments: [moved], custom: ["tag": "urlaub"])
        ])
        let customEdit = try await fixture.write([
            F.message(1, text: "Foto", updatedAt: F.baseTime + 20, attachments: [moved], custom: ["tag": "arbeit"])
        ])
        #expect(attachmentEdit.edited == 1)
        #expect(customEdit.edited == 1)
        let history = try #require(try await fixture.archive.messageHistory(id: F.objectID(1)))
        #expect(history.revisions.map(\.revision) == [1, 2])
        #expect(history.revisions[1].observedAt == history.revisions[0].supersededAt)
    }

    @Test func readMarkingAloneIsNotAnEdit() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([F.message(1, text: "Wer kommt mit?", readIDs: [1])])
        let marked = F.message(1, text: "Wer kommt mit?", readIDs: [1, 2, 3], updatedAt: F.baseTime + 90)
        let counts = try await fixture.write([marked], at: F.baseTime + 100)
        #expect(counts == PageCounts(unchanged: 1))

        let history = try #require(try await fixture.archive.messageHistory(id: F.objectID(1)))
        #expect(history.revisions.isEmpty)
        #expect(history.current.edited == 0)
        #expect(history.current.updatedAt == F.baseTime + 90)
        #expect(history.current.raw == marked.json.jsonString, "raw follows the server")
        let readIDs = try await fixture.sqlite.pool.read { db in
            try String.fetchOne(db, sql: "SELECT read_ids FROM messages WHERE id = ?", arguments: [F.objectID(1)])
        }
        #expect(readIDs == "[1,2,3]")
    }

    @Test func anOlderCopyDoesNotOverwriteANewerOne() async throws {
        let fixture = try await ArchiveFixture()
        let original = F.message(1, text: "alt")
        try await fixture.write([original])
        try await fixture.write([F.message(1, text: "neu", updatedAt: F.baseTime + 50)])
        #expect(try await fixture.write([original]) == PageCounts(unchanged: 1))
        let history = try #require(try await fixture.archive.messageHistory(id: F.objectID(1)))
        #expect(history.current.text == "neu")
        #expect(history.revisions.count == 1)
    }

    @Test func theCursorMovesWithThePage() async throws {
        let fixture = try await ArchiveFixture()
        let page = [
            F.message(1, text: "a", offset: 0), F.message(2, text: "b", offset: 5), F.message(3, text: "c", offset: 5),
        ]
        let cursor = CrawlCursor().advanced(over: page)
        try await fixture.archive.storeMessages(
            dialogID: F.dialogID, rawItems: page.map(\.json), cursor: cursor, at: 42)
        let state = try #require(try await fixture.archive.crawlState(dialogID: F.dialogID))
        #expect(state.cursor == CrawlCursor(dateSent: F.baseTime + 5, idsAtDateSent: [F.objectID(2), F.objectID(3)]))
        #expect(state.changedAt == 42)
        #expect(try await fixture.archive.crawlState(dialogID: F.otherDialogID) == nil)
    }

    @Test func aPageWithoutCursorLeavesTheCursorAlone() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([F.message(1, text: "eins", offset: 100)])
        let before = try await fixture.archive.crawlState(dialogID: F.dialogID)
        let edit = F.message(1, text: "eins (bearbeitet)", offset: 100, updatedAt: F.baseTime + 500)
        let counts = try await fixture.archive.storeMessages(dialogID: F.dialogID, rawItems: [edit.json], cursor: nil)
        #expect(counts.edited == 1)
        #expect(try await fixture.archive.crawlState(dialogID: F.dialogID) == before)
    }

    @Test func aPageThatFailsMidwayLeavesNoTrace() async throws {
        let fixture = try await ArchiveFixture()
        let committed = [F.message(1, text: "schon archiviert")]
        try await fixture.write(committed)
        let before = try #require(try await fixture.archive.crawlState(dialogID: F.dialogID))

        let page = [
            F.message(1, text: "schon archiviert, aber geändert", updatedAt: F.baseTime + 60),
            F.message(2, text: "neu eins", offset: 10), F.message(3, text: "neu zwei", offset: 20),
        ]
        let cursor = CrawlCursor(checkedUpdatedAt: F.baseTime + 60).advanced(over: page)
        // The database itself refuses the page's third message, after the first has made a revision and the
        // second has been inserted: a trigger of the writer's connection only, gone with the fixture.
        try await fixture.sqlite.pool.write { db in
            try db.execute(
                sql: """
                    CREATE TEMP TRIGGER refuse_third BEFORE INSERT ON main.messages WHEN NEW.id = '\(F.objectID(3))'
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        await #expect {
            try await fixture.archive.storeMessages(
                dialogID: F.dialogID, rawItems: page.map(\.json), cursor: cursor, at: F.baseTime + 99)
        } throws: { error in
            (error as? DatabaseError)?.message == "refused by the test"
        }

        #expect(try await fixture.archive.crawlState(dialogID: F.dialogID) == before)
        let counts = try await fixture.archive.counts()
        #expect(counts.messages == 1)
        #expect(counts.revisions == 0)
        let stored = try #require(try await fixture.archive.messageHistory(id: F.objectID(1))).current
        #expect(stored.text == "schon archiviert")
        #expect(stored.lastSeenAt == F.baseTime)
        #expect(try await fixture.find("neu").isEmpty)
        #expect(try await fixture.find("archiviert").count == 1)
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test func aConstraintViolationRollsBackThePage() async throws {
        let fixture = try await ArchiveFixture()
        let unknownDialog = F.objectID(0xBAD)
        let page = [
            F.message(1, text: "eins", dialogID: unknownDialog), F.message(2, text: "zwei", dialogID: unknownDialog),
        ]
        await #expect(throws: DatabaseError.self) {
            try await fixture.write(page, dialogID: unknownDialog)
        }
        #expect(try await fixture.archive.counts().messages == 0)
        #expect(try await fixture.archive.crawlState(dialogID: unknownDialog) == nil)
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test func itemsAreCheckedBeforeAnythingIsWritten() async throws {
        let fixture = try await ArchiveFixture()
        let stray = F.message(2, text: "falscher Dialog", dialogID: F.otherDialogID)
        await #expect(
            throws: ArchiveError.messageOutsideDialog(
                messageID: stray.id, messageDialogID: F.otherDialogID, pageDialogID: F.dialogID)
        ) {
            try await fixture.write([F.message(1, text: "ok"), stray])
        }
        await #expect(throws: ArchiveError.self) {
            try await fixture.archive.storeMessages(
                dialogID: F.dialogID, rawItems: [F.message(1, text: "ok").json, ["message": "no id"]],
                cursor: CrawlCursor())
        }
        #expect(try await fixture.archive.counts().messages == 0)
    }
}

/// Asserts that both FTS5 indexes agree with the messages table (FTS5's own integrity check).
func expectIndexesConsistent(_ archive: SQLiteArchive) async throws {
    try await archive.pool.write { db in
        try db.execute(sql: "INSERT INTO message_words (message_words, rank) VALUES ('integrity-check', 1)")
        try db.execute(sql: "INSERT INTO message_trigrams (message_trigrams, rank) VALUES ('integrity-check', 1)")
    }
}
