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
}
