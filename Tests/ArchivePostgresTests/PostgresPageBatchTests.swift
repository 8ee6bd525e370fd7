import Archive
import ArchivePostgres
import ArchiveSQLite
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import Testing

/// A page's new messages go to PostgreSQL in one statement and its files in another: whatever a page holds — a
/// message listed twice, edited within the page, an erased sender, a file named twice or already listed, `NULL`
/// columns — both backends store the same rows, with the same `rowid`s and file `id`s, and count the same.
@Suite(.postgres, .sharedCluster)
struct PostgresPageBatchTests {
    typealias Fixture = ArchiveFixture

    /// Random pages over a small pool of ids, texts and files, so that repeats within and across pages, edits,
    /// older copies and shared files are common; user 2 is erased half-way, so later pages carry skeletons.
    @Test(arguments: [1, 2, 3])
    func randomPagesStoreWhatSQLiteStores(seed: UInt64) async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        var random = SeededRandom(seed: seed)
        let files = (0..<6).map { n in
            Attachment(type: n % 2 == 0 ? "image" : "file", id: "\(n)", uid: "u\(n)", name: "f\(n).png", size: n)
        }
        let texts: [String?] = [nil, "", "hello world", "Grüße aus Köln", "会议在中午", "see you at 5", "x\u{0}y"]
        var time = Fixture.baseTime
        for page in 0..<12 {
            if page == 6 {
                // Until an erasure deletes a file's row, file ids are equal too (afterwards SQLite may give the
                // deleted highest id again, which PostgreSQL's identity never does; both keep the order).
                try await pair.expectSameRows("attachment_files", ["id", "key", "first_seen_at"], order: "id")
                for archive in [pair.postgres as any ArchiveWriter, pair.sqlite as any ArchiveWriter] {
                    _ = try await archive.erase(.user("2"), reason: nil, dryRun: false, at: time)
                }
            }
            time += 10
            let messages = (0..<Int.random(in: 1...25, using: &random)).map { _ in
                let number = Int.random(in: 1...30, using: &random)
                let edit = Int.random(in: 0...2, using: &random)
                return Message(
                    id: Fixture.objectID(number), chatDialogID: Fixture.dialogID,
                    text: texts.randomElement(using: &random)!, dateSent: Fixture.baseTime + number,
                    senderID: number % 5 == 0 ? nil : 1 + number % 3, recipientID: number % 4 == 0 ? nil : 0,
                    attachments: Array(files.shuffled(using: &random).prefix(Int.random(in: 0...2, using: &random))),
                    readIDs: edit == 1 ? [1, 2] : [1], deliveredIDs: [1, 2, 3],
                    createdAt: number % 7 == 0 ? nil : Fixture.baseTime + number,
                    updatedAt: Fixture.baseTime + number + edit)
            }
            let counts = try await pair.write(messages, at: time)
            #expect(counts.postgres == counts.sqlite, "page \(page)")
        }
        try await pair.expectSameRows(
            "messages", WriterPair.messageColumns, blobs: ["content_hash"], order: "rowid")
        try await pair.expectSameRows(
            "message_revisions", WriterPair.revisionColumns, blobs: ["content_hash"], order: "message_id, revision")
        try await pair.expectSameRows(
            "attachment_files",
            ["key", "uid", "blob_id", "url", "name", "type", "declared_size", "declared_type", "first_seen_at"],
            order: "id")
        // The words follow each row's text (a batch must not shift one row's vector onto another).
        let mismatched = try await pair.postgresColumn(
            """
            SELECT m.id FROM messages m LEFT JOIN message_words w USING (date_key)
            WHERE (m.text IS NULL OR m.text = '') <> (w.words IS NULL)
                OR (m.text LIKE '%world%') <> COALESCE(w.words @@ 'world', FALSE)
            """, as: String.self)
        #expect(mismatched.isEmpty)
        #expect(try await pair.postgres.integrityProblems() == [])
    }
}
