import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import Export

/// A dialog deleted for everyone keeps its messages as archived (they are not tombstoned one by one), so its
/// transcript says so under the heading: read alone, it must not look like a live conversation.
@Suite("Transcripts of dialogs deleted for everyone")
struct DeletedDialogTranscriptTests {
    @Test(arguments: [ContainerFormat.tarGz, .zip])
    func theHeadingSaysTheDialogWasDeletedAndOnlyThere(container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(messages: 80, dialogs: 4, changes: 0)
        defer { fixture.remove() }
        let dialogs = Array(Set(try await ExportReading.archived(fixture.archive).map(\.message.dialogID))).sorted()
        #expect(dialogs.count >= 2)
        let deletedAt = 1_767_300_000
        #expect(try await fixture.archive.tombstoneDialog(id: dialogs[0], evidence: nil, at: deletedAt))
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let path = fixture.path("all.\(container.fileExtension)")
        _ = try await BundleExport(selection: everything, container: container, toolVersion: "t")
            .run(archive: fixture.archive, to: path)
        let entries = try ExportReading.entries(path)
        let line =
            "The dialog was deleted for everyone: gone from the server as of 2026-01-01T20:40:00Z; its messages "
            + "are as they were archived.\n"
        for dialog in dialogs {
            let transcript = String(decoding: try #require(entries["transcripts/\(dialog).txt"]), as: UTF8.self)
            let lines = transcript.split(separator: "\n", omittingEmptySubsequences: false)
            if dialog == dialogs[0] {
                #expect(lines.count > 3 && lines[1] + "\n" == line, "\(transcript.prefix(300))")
            } else {
                #expect(!transcript.contains("deleted for everyone"), "\(transcript.prefix(300))")
                #expect(lines[1].hasPrefix("Times are UTC."))
            }
        }
        // The selection of one dialog says it too.
        let one = try ExportSelection(whereText: nil, dialogID: dialogs[0], since: nil, until: nil, now: 0)
        let single = fixture.path("one.\(container.fileExtension)")
        _ = try await BundleExport(selection: one, container: container, toolVersion: "t")
            .run(archive: fixture.archive, to: single)
        let transcript = try #require(try ExportReading.entries(single)["transcripts/\(dialogs[0]).txt"])
        #expect(String(decoding: transcript, as: UTF8.self).contains(line))
        #expect(try BundleVerifier().verify(path: single).canonical)
    }
}
