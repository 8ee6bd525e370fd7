import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// An import keeps every record the archive holds as it holds it, and says which of them the restored copy is newer
/// than (``NotMerged``): random mixes of edits (seen later or earlier), deletions and hides on both sides, checked
/// against the rules written out here, and the archive left exactly as it was, on every backend.
@Suite("Import into an archive that holds the records: newer copies counted, not merged, on every backend")
struct ImportNotMergedTests {
    typealias Batches = ImportBatchTests
    static let dialogID = ImportBatchTests.dialogID

    /// One message's two copies: what the archive holds and what a later import brings.
    struct Case {
        var n: Int
        var textChanged: Bool
        var seenLater: Bool
        var heldDeleted: Bool
        var restoredDeleted: Bool
        var heldHides: Set<Int>
        var restoredHides: Set<Int>

        var held: ArchivedMessage {
            var message = Batches.archived(
                n, text: "held \(n)", hiddenFor: heldHides.sorted().map { .init(user: $0, since: 7) })
            message.deletedAt = heldDeleted ? 1_700_300_000 : nil
            message.deletionEvidence = nil
            return message
        }

        var restored: ArchivedMessage {
            var message = Batches.archived(
                n, text: textChanged ? "restored \(n)" : "held \(n)",
                hiddenFor: restoredHides.sorted().map { .init(user: $0, since: 8) })
            message.lastSeenAt = held.lastSeenAt + (seenLater ? 50 : -50)
            message.deletedAt = restoredDeleted ? 1_700_400_000 : nil
            message.deletionEvidence = nil
            return message
        }

        /// The rules, written out: other content counts only when seen later; a deletion the archive lacks; a
        /// hide by a user the archive's copy does not list, while neither copy is deleted for everyone.
        var edited: Bool { textChanged && seenLater }
        var deleted: Bool { restoredDeleted && !heldDeleted }
        var hidden: Bool { !heldDeleted && !restoredDeleted && !restoredHides.isSubset(of: heldHides) }
    }

    static func cases(seed: UInt64, count: Int) -> [Case] {
        var random = SeededRandom(seed: seed)
        func users() -> Set<Int> { Set([101, 102, 103].filter { _ in Int.random(in: 0..<3, using: &random) == 0 }) }
        return (0..<count).map { n in
            Case(
                n: n, textChanged: Bool.random(using: &random), seenLater: Bool.random(using: &random),
                heldDeleted: Int.random(in: 0..<4, using: &random) == 0,
                restoredDeleted: Int.random(in: 0..<3, using: &random) == 0, heldHides: users(),
                restoredHides: users())
        }
    }

    static func dialog(name: String, occupants: String, lastSeen: Int, deletedAt: Int? = nil, hides: [Int] = [])
        -> ArchivedDialog
    {
        ArchivedDialog(
            id: dialogID, type: 2, name: name, photo: nil, userID: 100, occupantIDsJSON: occupants, adminIDsJSON: nil,
            createdAt: 1_690_000_000, updatedAt: nil, lastMessageDateSent: nil, xmppRoomJID: nil, dataJSON: nil,
            raw: #"{"_id":"\#(dialogID)","type":2}"#, firstSeenAt: 1, lastSeenAt: lastSeen, deletedAt: deletedAt,
            hiddenFor: hides.map { HiddenFor(user: $0, since: 3) })
    }

    static func user(_ id: Int, login: String, lastSeen: Int) -> ArchivedUser {
        ArchivedUser(
            id: id, login: login, email: nil, fullName: "User \(id)", phone: nil, createdAt: nil, updatedAt: nil,
            lastRequestAt: nil, customData: nil, userTags: nil, raw: #"{"id":\#(id),"login":"\#(login)"}"#,
            firstSeenAt: 1, lastSeenAt: lastSeen)
    }

    @Test(arguments: TestBackend.all, [UInt64(1), 2, 3])
    func newerCopiesAreCountedAndTheArchiveKeepsItsOwn(backend: TestBackend, seed: UInt64) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try await backend.create(directory.path, 1_700_000_000)
        let cases = Self.cases(seed: seed, count: 80)

        var held = ImportBatch()
        held.users = [Self.user(100, login: "anna", lastSeen: 10), Self.user(101, login: "ben", lastSeen: 10)]
        held.dialogs = [Self.dialog(name: "g", occupants: "[100,101,102]", lastSeen: 10, hides: [102])]
        held.messages = try cases.map { try ImportedMessage($0.held) }
        let first = try await archive.importRecords(held)
        #expect(first.inserted == 2 + 1 + cases.count && first.notMerged.isEmpty)
        let before = try await archive.messages(dialogID: Self.dialogID)
        let hiddenBefore = try await [101, 102, 103].asyncMap {
            try await archive.hiddenMessageIDs(dialogID: Self.dialogID, for: $0)
        }

        var later = ImportBatch()
        // Anna renamed, seen later; Ben renamed but seen earlier (the archive's is newer); Carl new.
        later.users = [
            Self.user(100, login: "anna2", lastSeen: 20), Self.user(101, login: "benjamin", lastSeen: 5),
            Self.user(102, login: "carl", lastSeen: 20),
        ]
        // The same occupants in another order are no change; a hide by 103 is.
        later.dialogs = [Self.dialog(name: "g", occupants: "[102,101,100]", lastSeen: 20, hides: [102, 103])]
        later.messages = try cases.map { try ImportedMessage($0.restored) }
        let outcome = try await archive.importRecords(later)

        let messages = cases.filter { $0.edited || $0.deleted || $0.hidden }
        #expect(outcome.inserted == 1, "only Carl is new")
        #expect(outcome.notMerged.editedMessages == cases.filter(\.edited).count)
        #expect(outcome.notMerged.deletedMessages == cases.filter(\.deleted).count)
        #expect(outcome.notMerged.hiddenMessages == cases.filter(\.hidden).count)
        #expect(outcome.notMerged.changedUsers == 1 && outcome.notMerged.hiddenDialogs == 1)
        #expect(outcome.notMerged.changedDialogs == 0 && outcome.notMerged.deletedDialogs == 0)
        #expect(outcome.notMerged.records == 1 + 1 + messages.count)
        #expect(
            outcome.notMerged.examples
                == (["user 100", "dialog \(Self.dialogID)"] + messages.prefix(3).map { "message \($0.held.id)" }))
        #expect(!messages.isEmpty && messages.count < cases.count, "the mix has both kinds")

        // Left exactly as held: content, tombstones, hides.
        #expect(try await archive.messages(dialogID: Self.dialogID) == before)
        let hiddenAfter = try await [101, 102, 103].asyncMap {
            try await archive.hiddenMessageIDs(dialogID: Self.dialogID, for: $0)
        }
        #expect(hiddenAfter == hiddenBefore)
        #expect(try await backend.problems(archive) == [])

        // The older copies (the archive's own) say nothing the archive lacks.
        let older = try await archive.importRecords(held)
        #expect(older.inserted == 0 && older.notMerged.isEmpty, "\(older.notMerged)")
    }

    /// The revisions of a history the archive did not take are not taken either: a message's revisions stay the
    /// rows its `edited` counts. A new message's revisions are all restored.
    @Test(arguments: TestBackend.all)
    func revisionsBeyondTheHeldEditsAreLeftOut(backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try await backend.create(directory.path, 1_700_000_000)
        var held = ImportBatch()
        held.dialogs = [Self.dialog(name: "g", occupants: "[100,101]", lastSeen: 10)]
        held.messages = [try ImportedMessage(Batches.archived(0, text: "held 0"))]
        _ = try await archive.importRecords(held)

        func revision(_ n: Int, _ number: Int) -> MessageRevision {
            MessageRevision(
                messageID: Batches.archived(n, text: "").id, revision: number, text: "version \(number)",
                attachmentsJSON: "[]", customJSON: "{}", raw: "{}", updatedAt: nil, observedAt: 1_700_150_000 + number,
                supersededAt: 1_700_160_000 + number)
        }
        var later = ImportBatch()
        var edited = Batches.archived(0, text: "edited 0", edited: 2)
        edited.lastSeenAt += 100
        let new = Batches.archived(1, text: "new 1", edited: 2)
        later.messages = [try ImportedMessage(edited), try ImportedMessage(new)]
        later.revisions = [revision(0, 1), revision(0, 2), revision(1, 1), revision(1, 2)]
        let outcome = try await archive.importRecords(later)
        #expect(outcome.inserted == 1 + 2, "the new message and its two revisions")
        #expect(outcome.notMerged.editedMessages == 1 && outcome.notMerged.records == 1)
        let kept = try #require(try await archive.messageHistory(id: edited.id))
        #expect(kept.current.text == "held 0" && kept.current.edited == 0 && kept.revisions.isEmpty)
        let restored = try #require(try await archive.messageHistory(id: new.id))
        #expect(restored.current.edited == 2 && restored.revisions.map(\.text) == ["version 1", "version 2"])
        #expect(try await backend.problems(archive) == [])
    }

    /// A dialog's tombstone and another name seen later are counted too, once per dialog.
    @Test(arguments: TestBackend.all)
    func aDeletedOrRenamedDialogIsCounted(backend: TestBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = try await backend.create(directory.path, 1_700_000_000)
        var held = ImportBatch()
        held.dialogs = [Self.dialog(name: "g", occupants: "[100,101]", lastSeen: 10)]
        _ = try await archive.importRecords(held)

        var renamed = ImportBatch()
        renamed.dialogs = [Self.dialog(name: "team", occupants: "[100,101]", lastSeen: 20)]
        let rename = try await archive.importRecords(renamed).notMerged
        #expect(rename.changedDialogs == 1 && rename.records == 1)
        var joined = ImportBatch()
        joined.dialogs = [Self.dialog(name: "g", occupants: "[100,101,105]", lastSeen: 20, deletedAt: 30)]
        let deleted = try await archive.importRecords(joined).notMerged
        #expect(deleted.changedDialogs == 1 && deleted.deletedDialogs == 1 && deleted.records == 1)
        var earlier = ImportBatch()
        earlier.dialogs = [Self.dialog(name: "old name", occupants: "[100]", lastSeen: 5)]
        #expect(try await archive.importRecords(earlier).notMerged.isEmpty, "seen earlier: the archive's is newer")
        #expect(try await archive.dialogSummary(id: Self.dialogID)?.name == "g")
    }
}
