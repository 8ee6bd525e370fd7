import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// Records restored from a bundle or another archive (``ArchiveWriter/importRecords(_:)``), the same on every
/// backend: a message repeated in one batch is stored once, as first given, with the hides of that first copy; a
/// message the archive holds already is left as it is; a later batch adds only what is new.
@Suite("Import batches on every backend")
struct ImportBatchTests {
    static let dialogID = "5f0000000000000000000001"

    static func message(_ n: Int, text: String, hiddenFor: [HiddenFor] = [], edited: Int = 0) throws -> ImportedMessage
    {
        try ImportedMessage(archived(n, text: text, hiddenFor: hiddenFor, edited: edited))
    }

    static func archived(_ n: Int, text: String, hiddenFor: [HiddenFor] = [], edited: Int = 0) -> ArchivedMessage {
        let id = String(format: "6a%022d", n)
        let attachments: JSONValue =
            n % 3 == 0 ? [["type": "image", "id": .string("blob-\(n % 12)"), "name": "p.png"]] : []
        let raw: JSONValue = [
            "_id": .string(id), "chat_dialog_id": .string(dialogID), "date_sent": .int(1_700_000_000 + n / 2),
            "sender_id": .int(100 + n % 4), "message": .string(text), "attachments": attachments,
        ]
        return ArchivedMessage(
            id: id, dialogID: dialogID, senderID: 100 + n % 4, recipientID: nil, dateSent: 1_700_000_000 + n / 2,
            createdAt: nil, updatedAt: nil, text: text, attachmentsJSON: attachments.jsonString, customJSON: "{}",
            raw: raw.jsonString, firstSeenAt: 1_700_100_000 + n, lastSeenAt: 1_700_200_000 + n, edited: edited,
            deletedAt: n % 5 == 4 ? 1_700_300_000 : nil, hiddenFor: hiddenFor,
            deletionEvidence: n % 5 == 4 ? "gone for everyone" : nil)
    }

    static func batches() throws -> [ImportBatch] {
        var first = ImportBatch()
        first.dialogs = [
            ArchivedDialog(
                id: dialogID, type: 2, name: "g", photo: nil, userID: 100, occupantIDsJSON: "[100,101,102,103]",
                adminIDsJSON: nil, createdAt: 1_690_000_000, updatedAt: nil, lastMessageDateSent: nil,
                xmppRoomJID: nil, dataJSON: nil, raw: #"{"_id":"\#(dialogID)","type":2}"#, firstSeenAt: 1,
                lastSeenAt: 2,
                deletedAt: nil)
        ]
        first.messages = try (0..<40).map { n in
            try message(n, text: "word \(n) ß Straße", hiddenFor: n % 7 == 1 ? [HiddenFor(user: 101, since: 5)] : [])
        }
        // Repeats in the same batch, with other text and hides: the first copy stands.
        first.messages += [
            try message(3, text: "changed", hiddenFor: [HiddenFor(user: 102, since: 9)], edited: 2),
            try message(8, text: "changed too", hiddenFor: [HiddenFor(user: 103, since: 9)]),
        ]
        var second = ImportBatch()
        // Already held (left as it is), and new ones.
        second.messages = [try message(1, text: "not this", hiddenFor: [HiddenFor(user: 103, since: 1)])]
        second.messages += try (40..<55).map { try message($0, text: "later \($0)") }
        return [first, second]
    }

    @Test(arguments: TestBackend.all)
    func repeatsAndHeldMessagesAreLeftAsTheFirstCopy(backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try await backend.create(directory.path, 1_700_000_000)
        let written = try await Self.batches().asyncMap { try await archive.importRecords($0) }
        #expect(written.map(\.inserted) == [1 + 40, 15])
        // The repeats' and the held message's other hides are reported, not taken (their texts were seen no later).
        #expect(written.map(\.notMerged.hiddenMessages) == [2, 1] && written.map(\.notMerged.records) == [2, 1])
        #expect(written.map(\.notMerged.editedMessages) == [0, 0])
        let again = try await archive.importRecords(try Self.batches()[1])
        #expect(again.inserted == 0, "a batch imported again adds nothing")

        let stored = try await archive.messages(dialogID: Self.dialogID)
        #expect(stored.map(\.id) == (0..<55).map { Self.archived($0, text: "").id })
        for message in stored {
            let n = Int(message.id.dropFirst(2))!
            let expected = n < 40 ? "word \(n) ß Straße" : "later \(n)"
            #expect(message.text == expected && message.edited == 0, "\(n)")
            #expect(message.firstSeenAt == 1_700_100_000 + n && message.lastSeenAt == 1_700_200_000 + n)
            #expect(message.deletedAt == (n % 5 == 4 ? 1_700_300_000 : nil))
        }
        // Hidden for user 101: n % 7 == 1, but 29 is tombstoned (deleted for everyone counts as gone, not hidden).
        #expect(try await archive.hiddenMessageIDs(dialogID: Self.dialogID, for: 101).count == 5)
        #expect(try await archive.hiddenMessageIDs(dialogID: Self.dialogID, for: 102).isEmpty)
        #expect(try await archive.hiddenMessageIDs(dialogID: Self.dialogID, for: 103).isEmpty)
        // The files the attachments name were listed once each, and the word index has the imported text.
        #expect(try await archive.fileCounts().byStatus.values.reduce(0, +) == 4)
        #expect(try await backend.problems(archive) == [])
    }

    /// A membership period the archive holds is kept as held: an older bundle's open copy of a period since
    /// closed adds no second, open row (the member would read as never having left); another period is added.
    @Test(arguments: TestBackend.all)
    func aHeldMembershipPeriodIsKeptAsHeld(backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try await backend.create(directory.path, 1_700_000_000)
        var closed = try Self.batches()[0]
        closed.messages = []
        closed.membership = [
            MembershipPeriod(dialogID: Self.dialogID, userID: 101, joinedObservedAt: 10, leftObservedAt: 20)
        ]
        _ = try await archive.importRecords(closed)
        var older = ImportBatch()
        older.membership = [
            MembershipPeriod(dialogID: Self.dialogID, userID: 101, joinedObservedAt: 10, leftObservedAt: nil),
            MembershipPeriod(dialogID: Self.dialogID, userID: 101, joinedObservedAt: 30, leftObservedAt: nil),
        ]
        #expect(try await archive.importRecords(older).inserted == 1, "only the period the archive does not hold")
        let periods = try await archive.membership(dialogID: Self.dialogID).filter { $0.userID == 101 }
            .sorted { $0.joinedObservedAt < $1.joinedObservedAt }
        #expect(periods.map(\.joinedObservedAt) == [10, 30] && periods.map(\.leftObservedAt) == [20, nil])
    }

    /// A message's QuickBlox columns come from its `raw` record, derived when the batch is built: a record whose
    /// `raw` is not a message, or is another message or another dialog's, is refused before any archive sees it.
    @Test func aMessageIsDerivedFromItsRawRecordOrRefused() throws {
        var column = Self.archived(6, text: "from raw")
        column.text = "from the column"
        column.senderID = 999
        let derived = try ImportedMessage(column)
        #expect(derived.content.message.text == "from raw" && derived.content.message.senderID == 102)
        #expect(derived.archived == column, "the archive's own columns are taken as given")

        let zero = Self.archived(7, text: "a\u{0}b")
        #expect(try ImportedMessage(zero).content.message.text == "a\u{FFFD}b", "stored as a crawl stores it")

        var otherDialog = Self.archived(1, text: "x")
        otherDialog.dialogID = "5f0000000000000000000002"
        var otherID = Self.archived(2, text: "x")
        otherID.id = Self.archived(3, text: "x").id
        var broken = Self.archived(4, text: "x")
        broken.raw = #"{"_id":"#
        var notAMessage = Self.archived(5, text: "x")
        notAMessage.raw = "[1,2]"
        for refused in [otherDialog, otherID, broken, notAMessage] {
            let problem = #expect(throws: ImportedMessage.Problem.self) { try ImportedMessage(refused) }
            #expect(problem?.messageID == refused.id)
            #expect(problem?.errorDescription?.contains("cannot be restored: the `raw` record") == true)
        }
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
