import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// Pages written after an erasure: what the server still has of an erased person, dialog or message is stored
/// already erased, and the storage stays sound.
@Suite("Pages written after an erasure")
struct ErasureWriteTests {
    typealias F = ArchiveFixture

    @Test func newAndRepeatedMessagesOfWhatWasErasedArriveErasedAndTheIndexesStaySound() async throws {
        let fixture = try await F()
        try await fixture.write((1...9).map { F.message($0, text: "before \($0) plum") })
        // Sender 2 is messages 1, 4, 7.
        let report = try await fixture.archive.erase(.user("2"), reason: nil, dryRun: false, at: F.baseTime + 10)
        #expect(report.messages == 3)
        // The server still has them (a re-read page) and sender 2 writes again (10, 13).
        try await fixture.write(
            (1...15).map { F.message($0, text: "after \($0) plum", offset: $0, updatedAt: F.baseTime + 100) })
        for message in try await fixture.archive.messages(dialogID: F.dialogID) {
            if message.senderID == 2 {
                #expect(message.text == nil, "\(message.id) of the erased sender")
            } else {
                #expect(message.text?.hasPrefix("after") == true, "\(message.id)")
            }
        }
        #expect(try await fixture.find("plum", limit: 100).count == 10)
        #expect(try await fixture.archive.integrityProblems().isEmpty)
    }

    /// Erasure works in batches of 1000 along an index: every selected message is erased exactly once,
    /// across batch boundaries and among many messages sent in the same second, and nothing else is.
    @Test(arguments: ["dialog", "user", "retention"])
    func largeErasuresCrossBatchBoundariesWithoutMissingOrRepeating(kind: String) async throws {
        let fixture = try await F()
        // 2,600 messages over 372 seconds, seven to a second (batches end mid-second), three senders (1 + n % 3); the other dialog too.
        for (dialog, base) in [(F.dialogID, 0), (F.otherDialogID, 10_000)] {
            for chunk in stride(from: 1, through: 2_600, by: 500) {
                try await fixture.write(
                    (chunk..<min(chunk + 500, 2_601)).map {
                        F.message(base + $0, text: "word\(base + $0) plum", offset: $0 / 7, dialogID: dialog)
                    }, dialogID: dialog)
            }
        }
        let target: ErasureTarget =
            switch kind {
            case "dialog": .dialog(id: F.dialogID)
            case "user": .user("2")
            default: .sentBefore(F.baseTime + 200, keeping: [F.objectID(1_299), F.objectID(10_005)])
            }
        let selected = { (message: ArchivedMessage) -> Bool in
            switch kind {
            case "dialog": message.dialogID == F.dialogID
            case "user": message.senderID == 2
            default:
                message.dateSent < F.baseTime + 200 && ![F.objectID(1_299), F.objectID(10_005)].contains(message.id)
            }
        }
        let before =
            try await fixture.archive.messages(dialogID: F.dialogID)
            + fixture.archive.messages(dialogID: F.otherDialogID)
        let expected = before.filter(selected).count
        #expect(expected > 1_500)
        let report = try await fixture.archive.erase(target, reason: nil, dryRun: false, at: F.baseTime + 10_000)
        #expect(report.messages == expected)
        if kind == "retention" { #expect(report.kept == 2) }
        let after =
            try await fixture.archive.messages(dialogID: F.dialogID)
            + fixture.archive.messages(dialogID: F.otherDialogID)
        #expect(after.count == before.count)
        for message in after {
            #expect((message.text == nil) == selected(message), "\(message.id)")
        }
        #expect(try await fixture.find("plum", limit: 10_000).count == before.count - expected)
        #expect(try await fixture.archive.integrityProblems().isEmpty)
    }

    /// A hold placed after the caller checked the holds (between its check and the erasure's transaction) is
    /// seen inside that transaction: nothing is erased.
    @Test func aHoldPlacedAfterTheCheckStopsTheErasure() async throws {
        let fixture = try await F()
        try await fixture.write((1...6).map { F.message($0, text: "kept \($0) plum") })
        let seen = try await fixture.archive.holds().map(\.id).max() ?? 0
        let hold = try await fixture.archive.addHold(kind: .user, target: "2", reason: "case 9", at: F.baseTime)
        await #expect(throws: ArchiveError.holdPlacedMeanwhile(hold.id)) {
            try await fixture.archive.erase(.user("2"), reason: nil, dryRun: false, holdsSeen: seen, at: F.baseTime)
        }
        #expect(try await fixture.find("plum").count == 6)
        // Checked against it, the erasure goes on (the command refuses held data before this point).
        let report = try await fixture.archive.erase(
            .message(id: F.objectID(3)), reason: nil, dryRun: false, holdsSeen: hold.id, at: F.baseTime)
        #expect(report.messages == 1)
    }

    /// QuickBlox repeats a dialog's last message in the dialog's record: an erasure of that message, of its
    /// sender, or by retention takes the copy too, and later crawls (the server still repeating it) do not
    /// bring it back.
    @Test(arguments: ["message", "user", "retention"])
    func theDialogsCopyOfAnErasedLastMessageGoesAndStaysGone(kind: String) async throws {
        let fixture = try await F()
        try await fixture.write((1...4).map { F.message($0, text: "plain \($0)", offset: $0) })
        try await fixture.write([F.message(5, text: "secret last words", offset: 5)])  // sender 1 + 5 % 3 = 3
        var dialog = F.dialog(F.dialogID)
        dialog.lastMessage = "secret last words"
        dialog.lastMessageID = F.objectID(5)
        dialog.lastMessageUserID = 3
        dialog.lastMessageDateSent = F.baseTime + 5
        try await fixture.archive.storeDialogs(rawItems: [dialog.json], at: F.baseTime + 10)
        let raw = {
            try await fixture.archive.withSnapshot { snapshot in
                var raws: [String] = []
                for try await batch in snapshot.dialogs(ids: [F.dialogID]) { raws += batch.map(\.raw) }
                return raws.joined()
            }
        }
        #expect(try await raw().contains("secret last words"))
        let target: ErasureTarget =
            switch kind {
            case "message": .message(id: F.objectID(5))
            case "user": .user("3")
            default: .sentBefore(F.baseTime + 6, keeping: [])
            }
        _ = try await fixture.archive.erase(target, reason: nil, dryRun: false, at: F.baseTime + 20)
        #expect(try await !raw().contains("secret last words"), "\(kind): the dialog's record keeps the text")
        // The server repeats the same record on the next crawl.
        try await fixture.archive.storeDialogs(rawItems: [dialog.json], at: F.baseTime + 30)
        #expect(try await !raw().contains("secret last words"), "\(kind): a later crawl brought it back")
        // A last message of someone not erased is kept as the server sends it.
        dialog.lastMessage = "still here"
        dialog.lastMessageID = F.objectID(6)
        dialog.lastMessageUserID = 1
        try await fixture.archive.storeDialogs(rawItems: [dialog.json], at: F.baseTime + 40)
        #expect(try await raw().contains("still here"))
        #expect(try await fixture.archive.integrityProblems().isEmpty)
    }
}
