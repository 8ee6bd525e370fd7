import Archive
import ArchiveTestSupport
import QueryLanguage
import QuickBlox
import Testing

@testable import ArchiveSQL

@Suite("Streaming and bulk ingest")
struct SnapshotTests {
    typealias F = ArchiveFixture

    @Test(arguments: TestBackend.all) func streamingIsInDialogDateAndIDOrder(backend: TestBackend) async throws {
        let fixture = try await ArchiveFixture(backend: backend)
        // Written out of order, across pages and dialogs, with ties on date_sent.
        try await fixture.write([F.message(5, text: "e", offset: 30), F.message(4, text: "d", offset: 10)])
        try await fixture.write(
            [
                F.message(3, text: "c", offset: 10, dialogID: F.otherDialogID),
                F.message(1, text: "a", offset: 20, dialogID: F.otherDialogID),
            ],
            dialogID: F.otherDialogID)
        try await fixture.write([F.message(2, text: "b", offset: 10)])
        try await fixture.archive.tombstoneMessages(ids: [F.objectID(4)])

        let seen = try await fixture.streamed().map { $0.message.text ?? "" }
        // Dialog D1A (ids 2, 4 at +10; 5 at +30) sorts before D1B (3 at +10; 1 at +20).
        #expect(seen == ["b", "d", "e", "c", "a"])
    }

    @Test(arguments: TestBackend.all) func withoutRecordsTheStreamHasTheSameMessagesKeysAndFiles(backend: TestBackend)
        async throws
    {
        let fixture = try await ArchiveFixture(backend: backend)
        let photo = Attachment(type: "image", uid: "u1")
        let blob = Attachment(type: "file", id: "77")
        let link = Attachment(type: "file", url: "https://files.example/a.pdf")
        let place = Attachment(type: "location", extra: ["data": .string("52.5,13.4")])
        // Three batches of up to 1,000; attachments repeat within a message and across batches.
        let messages = (1...2500).map { n in
            F.message(
                n, text: "m\(n)", offset: n,
                attachments: n % 7 == 0
                    ? [place, photo] : n % 11 == 0 ? [blob, link, blob] : n % 13 == 0 ? [place] : [])
        }
        try await fixture.write(messages)
        let (full, lean) = try await fixture.archive.withSnapshot { snapshot in
            (
                try await Self.read(snapshot.messages(matching: nil)),
                try await Self.read(snapshot.messages(matching: nil, raw: false))
            )
        }

        #expect(full.hits.count == 2500 && full.hits.allSatisfy { !$0.message.raw.isEmpty })
        #expect(lean.hits.allSatisfy { $0.message.raw.isEmpty })
        #expect(
            lean.hits
                == full.hits.map { hit in
                    var hit = hit
                    hit.message.raw = ""
                    return hit
                })
        for stream in [full, lean] {
            #expect(stream.keys.count == stream.hits.count)
            for (hit, keys) in zip(stream.hits, stream.keys) {
                #expect(keys == AttachmentKey.keys(ofAttachmentsJSON: hit.message.attachmentsJSON), "\(hit.message.id)")
            }
            let named = stream.keys.filter { !$0.isEmpty }
            let expectedCount = 2500 / 7 + 2500 / 11 - 2500 / 77
            #expect(named.count == expectedCount)
            #expect(Set(named) == [["uid:u1"], ["id:77", "url:https://files.example/a.pdf"]])
            // Each batch carried the records of the keys its messages name.
            #expect(stream.missingFiles == 0)
            #expect(Set(stream.files.keys) == ["uid:u1", "id:77", "url:https://files.example/a.pdf"])
        }
    }

    /// The stream looks names up a batch at a time instead of joining them: it must give each message the
    /// dialog and people a search (which joins) gives it — across batches, past a look-up's 500 ids, for
    /// senders and recipients the archive has no profile of, and for a private dialog with no name.
    @Test(arguments: TestBackend.all) func theStreamNamesEveryMessageAsASearchDoes(backend: TestBackend)
        async throws
    {
        let (fixture, searched) = try await Self.namedMessages(backend: backend)
        let streamed = try await fixture.streamed()
        #expect(streamed.count == 2700 && searched.count == 2700)
        let differing = zip(streamed.sorted { $0.message.id < $1.message.id }, searched)
            .filter { $0 != $1 }.map(\.0.message.id)
        #expect(
            differing.isEmpty,
            "\(differing.count) messages named otherwise than by search, first \(differing.prefix(3))")
        // The fixture reaches each case it is meant to.
        #expect(streamed.contains { $0.senderLogin == nil && $0.message.senderID == 701 })
        #expect(streamed.contains { $0.senderLogin == "user5" && $0.senderName == nil })
        #expect(streamed.contains { $0.recipientLogin == "user2" && $0.dialogType == 3 && $0.dialogName == nil })
        #expect(streamed.contains { $0.recipientLogin == nil && $0.message.recipientID == 715 })
        #expect(streamed.contains { $0.dialogName == "Team München" && $0.dialogType == 2 })
    }

    /// Names forgotten past the limit (50,000 in exports, 100 here) are looked up again: every message of every
    /// batch is still named as a search names it.
    @Test(arguments: TestBackend.all) func namesForgottenPastTheLimitAreLookedUpAgain(backend: TestBackend)
        async throws
    {
        let (fixture, searched) = try await Self.namedMessages(backend: backend)
        let sql = try #require((fixture.archive as? any SQLArchiveReading)?.sql)
        let named = try await sql.read { connection in
            var names = MessageNames(limit: 100)
            var named: [SearchHit] = []
            for start in stride(from: 0, to: searched.count, by: 250) {
                var batch = searched[start..<min(start + 250, searched.count)].map { hit in
                    SearchHit(message: hit.message, dialogName: nil, dialogType: nil, senderLogin: nil, senderName: nil)
                }
                try names.fill(&batch, on: connection)
                named += batch
            }
            return named
        }
        let differing = zip(named, searched).filter { $0 != $1 }.map(\.0.message.id)
        #expect(named.count == 2700)
        #expect(differing.isEmpty, "\(differing.count) messages named otherwise, first \(differing.prefix(3))")
    }

    /// 2,700 messages in two group dialogs and a private one, from 720 senders of whom 700 have a profile (every
    /// fifth without a full name), with what a search (which joins the names) gives for them, by message id.
    private static func namedMessages(backend: TestBackend) async throws -> (ArchiveFixture, [SearchHit]) {
        let fixture = try await ArchiveFixture(backend: backend)
        let privateID = F.objectID(0xD1C)
        try await fixture.archive.storeDialogs(
            rawItems: [
                Dialog(
                    id: privateID, type: .private, name: nil, userID: 1, occupantIDs: [1, 2], createdAt: F.baseTime,
                    updatedAt: F.baseTime
                ).json
            ], at: F.baseTime)
        let users = (1...700).map { id in
            User(
                id: id, login: "user\(id)", fullName: id % 5 == 0 ? nil : "Person \(id)", createdAt: F.baseTime,
                updatedAt: F.baseTime)
        }
        try await fixture.archive.storeUsers(rawItems: users.map(\.json), at: F.baseTime)
        for (index, dialog) in [F.dialogID, F.otherDialogID, privateID].enumerated() {
            let messages = (1...900).map { n in
                let number = index * 1000 + n
                let isPrivate = dialog == privateID
                return Message(
                    id: F.objectID(number), chatDialogID: dialog, text: "m\(number)", dateSent: F.baseTime + n,
                    senderID: isPrivate ? 1 + n % 2 : 1 + (n * 37) % 720,
                    recipientID: isPrivate ? (n % 3 == 0 ? 715 : 2 - n % 2) : 0, attachments: [], readIDs: [],
                    deliveredIDs: [], createdAt: F.baseTime + n, updatedAt: F.baseTime + n)
            }
            try await fixture.write(messages, dialogID: dialog)
        }
        let query = try QueryParser(now: F.baseTime).parse("after:2000-01-01")
        let searched = try await fixture.archive.search(query, options: SearchOptions(limit: 10_000))
        return (fixture, searched.sorted { $0.message.id < $1.message.id })
    }

    private struct Read {
        var hits: [SearchHit] = []
        var keys: [[String]] = []
        var files: [String: ArchivedFile] = [:]
        var missingFiles = 0
    }

    private static func read(_ stream: AsyncThrowingStream<ExportBatch<SearchHit>, any Error>) async throws -> Read {
        var read = Read()
        for try await batch in stream {
            read.hits += batch.items
            read.keys += batch.attachmentKeys
            for key in batch.attachmentKeys.joined() {
                if let file = batch.files[key] { read.files[key] = file } else { read.missingFiles += 1 }
            }
        }
        return read
    }

    @Test(arguments: TestBackend.all) func anErrorInTheConsumerStopsTheStreamAndEndsTheSnapshot(backend: TestBackend)
        async throws
    {
        struct Stop: Error {}
        let fixture = try await ArchiveFixture(backend: backend)
        try await fixture.write((1...2500).map { F.message($0, text: "m\($0)", offset: $0) })
        await #expect(throws: Stop.self) {
            try await fixture.archive.withSnapshot { snapshot in
                var count = 0
                for try await batch in snapshot.messages(matching: nil) {
                    count += batch.items.count
                    if count >= 1000 { throw Stop() }
                }
            }
        }
        // The producer ended with the snapshot: reading and writing go on.
        try await fixture.write([F.message(9999, text: "after", offset: 9999)])
        #expect(try await fixture.streamed().count == 2501)
    }

    @Test(arguments: TestBackend.all) func aTwentyThousandMessageIngestStaysConsistent(backend: TestBackend)
        async throws
    {
        let fixture = try await ArchiveFixture(backend: backend)
        let phrases = [
            "Grüße aus München", "C++ vs. C#", "Wir sehen uns im Café 🙂", "Can you review the PR?",
            "Привет, как дела?", "東京で会いましょう", "ok 👍", "Die Präsentation ist fertig",
        ]
        var cursor = CrawlCursor()
        let pageSize = 100
        for page in 0..<200 {
            let messages = (0..<pageSize).map { index in
                let number = page * pageSize + index
                return F.message(number + 1, text: "\(phrases[number % phrases.count]) #\(number)", offset: number / 3)
            }
            cursor = cursor.advanced(over: messages)
            let counts = try await fixture.archive.storeMessages(
                dialogID: F.dialogID, rawItems: messages.map(\.json), cursor: cursor)
            #expect(counts.new == pageSize)
        }
        #expect(try await fixture.archive.counts().messages == 20_000)
        #expect(try await fixture.find("munchen", limit: 10_000).count == 2500)
        #expect(try await fixture.find(#"message ctn "++ vs""#, limit: 10_000).count == 2500)
        #expect(try await fixture.backend.problems(fixture.archive) == [])
        #expect(try await fixture.streamed().count == 20_000)
    }
}
