import Archive
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// A restore's batches held in one transaction (``SQLiteArchive/importing(_:)``): committed once they make the
/// bound, and at the end whether the restore returns or throws; a failing batch undoes the open transaction and
/// leaves the archive writable; both full-text indexes hold every new message once, whatever the batches' order.
@Suite("Import batches held in one transaction")
struct ImportSessionTests {
    static let dialogs = (0..<3).map { String(format: "5f%022d", $0) }

    /// Messages of three dialogs, listed dialog by dialog as a bundle lists them, with dates spread so that each
    /// batch's word-index keys go up and down; every tenth has no text; `dialog` overrides the dialog (to fail),
    /// `words` are added to the text of the messages that have one.
    static func message(_ n: Int, dialog: String? = nil, words: String = "") throws -> ImportedMessage {
        let id = String(format: "6b%022d", n)
        let dialogID = dialog ?? dialogs[n % 3]
        let date = 1_700_000_000 + (n * 7919) % 100_000
        let text = n % 10 == 9 ? nil : "[m\(n)] note Ελληνικά 漢字 \(n % 7)\(words)"
        var raw: [String: JSONValue] = [
            "_id": .string(id), "chat_dialog_id": .string(dialogID), "date_sent": .int(date),
            "sender_id": .int(100 + n % 4), "attachments": [],
        ]
        if let text { raw["message"] = .string(text) }
        return try ImportedMessage(
            ArchivedMessage(
                id: id, dialogID: dialogID, senderID: 100 + n % 4, recipientID: nil, dateSent: date, createdAt: nil,
                updatedAt: nil, text: text, attachmentsJSON: "[]", customJSON: "{}",
                raw: JSONValue.object(raw).jsonString, firstSeenAt: 1_700_100_000, lastSeenAt: 1_700_100_000,
                edited: 0, deletedAt: nil, hiddenFor: [], deletionEvidence: nil))
    }

    static func dialogBatch() -> ImportBatch {
        var batch = ImportBatch()
        batch.dialogs = dialogs.map { id in
            ArchivedDialog(
                id: id, type: 2, name: "g", photo: nil, userID: 100, occupantIDsJSON: "[100,101,102,103]",
                adminIDsJSON: nil, createdAt: 1_690_000_000, updatedAt: nil, lastMessageDateSent: nil,
                xmppRoomJID: nil, dataJSON: nil, raw: #"{"_id":"\#(id)","type":2}"#, firstSeenAt: 1, lastSeenAt: 2,
                deletedAt: nil)
        }
        return batch
    }

    /// The messages `numbers`, sorted dialog by dialog (as a bundle lists them), in batches of `size`.
    static func messageBatches(_ numbers: Range<Int>, size: Int) throws -> [ImportBatch] {
        let ordered = numbers.sorted { ($0 % 3, $0) < ($1 % 3, $1) }
        return try stride(from: 0, to: ordered.count, by: size).map { start in
            var batch = ImportBatch()
            batch.messages = try ordered[start..<min(start + size, ordered.count)].map { try message($0) }
            return batch
        }
    }

    static func withArchive(_ body: (SQLiteArchive, SQLiteArchive) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("a.qbarchive").path
        let archive = try SQLiteArchive.create(at: path)
        let reader = try SQLiteArchive.openReadOnly(at: path)
        try await body(archive, reader)
    }

    /// Every message is in each full-text index exactly once, under its key (found by its words and substrings
    /// when it has text), and FTS5's own check against the messages passes; `numbers` are the messages the archive
    /// should hold.
    static func expectIndexed(_ archive: SQLiteArchive, holding numbers: Set<Int>) async throws {
        let problems = try await archive.integrityProblems()
        #expect(problems == [])
        let withText = numbers.filter { $0 % 10 != 9 }
        try await archive.pool.read { db in
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") == numbers.count)
            // A message without text has its (empty) entry, as a crawl makes it: FTS5's check expects one a row.
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM message_words_docsize") == numbers.count)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM message_trigrams_docsize") == numbers.count)
            for n in withText.sorted() where n % 17 == 0 || n == withText.max() {
                let id = String(format: "6b%022d", n)
                let key = try #require(
                    try Int64.fetchOne(db, sql: "SELECT date_key FROM messages WHERE id = ?", arguments: [id]))
                let rowid = try #require(
                    try Int64.fetchOne(db, sql: "SELECT rowid FROM messages WHERE id = ?", arguments: [id]))
                let words = try Int64.fetchAll(
                    db, sql: "SELECT rowid FROM message_words WHERE message_words MATCH ?", arguments: ["m\(n)"])
                let substrings = try Int64.fetchAll(
                    db, sql: "SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH ?",
                    arguments: ["\"[m\(n)]\""])
                #expect(words == [key], "message \(n) by its word")
                #expect(substrings == [rowid], "message \(n) by a substring")
            }
        }
    }

    @Test(arguments: [1, 250, 1_000_000])
    func batchesAreCommittedOnceTheyMakeTheBound(bound: Int) async throws {
        try await Self.withArchive { archive, reader in
            let batches = [Self.dialogBatch()] + (try Self.messageBatches(0..<1000, size: 100))
            var committed = 0
            var open = 0
            try await archive.importing(recordsPerTransaction: bound) { session in
                for batch in batches {
                    #expect(try await session.store(batch).inserted == batch.count)
                    open += batch.count
                    if open >= bound { (committed, open) = (committed + open, 0) }
                    let visible = try await reader.counts()
                    #expect(visible.dialogs + visible.messages == committed, "readers see committed batches only")
                }
            }
            #expect(try await reader.counts().messages == 1000, "the rest committed at the end")
            try await Self.expectIndexed(archive, holding: Set(0..<1000))

            // Again, with messages held already among new ones: only the new are added, and indexed once.
            let again = try Self.messageBatches(900..<1300, size: 70)
            let added = try await archive.importing(recordsPerTransaction: bound) { session in
                var added = 0
                for batch in again { added += try await session.store(batch).inserted }
                return added
            }
            #expect(added == 300)
            try await Self.expectIndexed(archive, holding: Set(0..<1300))
        }
    }

    struct Interrupted: Error {}

    @Test func aRestoreThatThrowsKeepsTheBatchesItStored() async throws {
        try await Self.withArchive { archive, reader in
            await #expect(throws: Interrupted.self) {
                try await archive.importing(recordsPerTransaction: 10_000) { session in
                    _ = try await session.store(Self.dialogBatch())
                    for batch in try Self.messageBatches(0..<250, size: 100) { _ = try await session.store(batch) }
                    throw Interrupted()
                }
            }
            #expect(try await reader.counts().messages == 250)
            try await Self.expectIndexed(archive, holding: Set(0..<250))
        }
    }

    /// A restore whose task is cancelled as it ends: GRDB starts no asynchronous access in a cancelled task, and
    /// the transaction is committed all the same rather than left open on the writer.
    @Test func aCancelledRestoreLeavesNoTransactionOpen() async throws {
        try await Self.withArchive { archive, reader in
            let restore = Task {
                try await archive.importing(recordsPerTransaction: 10_000) { session in
                    _ = try await session.store(Self.dialogBatch())
                    for batch in try Self.messageBatches(0..<150, size: 100) { _ = try await session.store(batch) }
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
            await #expect(throws: CancellationError.self) { try await restore.value }
            #expect(try await reader.counts().messages == 150)
            try await archive.pool.write { db in try db.execute(sql: "UPDATE archive_meta SET format = format") }
            try await Self.expectIndexed(archive, holding: Set(0..<150))
        }
    }

    /// A batch that breaks a constraint (a message of a dialog the archive does not have) undoes the transaction it
    /// is in — the batches since the last commit too, as a killed process would — and the archive stays writable:
    /// the same batches imported again complete it.
    @Test func aFailingBatchUndoesItsTransactionAndLeavesTheArchiveWritable() async throws {
        try await Self.withArchive { archive, reader in
            let batches = try Self.messageBatches(0..<600, size: 100)
            var broken = batches[5]
            broken.messages[40] = try Self.message(5_000, dialog: "5f9999999999999999999999")
            await #expect(throws: DatabaseError.self) {
                try await archive.importing(recordsPerTransaction: 250) { session in
                    _ = try await session.store(Self.dialogBatch())
                    for batch in batches[0..<5] + [broken] { _ = try await session.store(batch) }
                }
            }
            // Committed: the dialogs and three batches (303 records); the fourth and fifth were in the undone one.
            #expect(try await reader.counts().messages == 300)
            // No transaction left open on the writer: a write access of its own begins one.
            try await archive.pool.write { db in try db.execute(sql: "UPDATE archive_meta SET format = format") }
            let added = try await archive.importing(recordsPerTransaction: 250) { session in
                var added = 0
                for batch in batches { added += try await session.store(batch).inserted }
                return added
            }
            #expect(added == 300)
            try await Self.expectIndexed(archive, holding: Set(0..<600))
        }
    }
}
