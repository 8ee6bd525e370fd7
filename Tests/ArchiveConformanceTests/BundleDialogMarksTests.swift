import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import Export

/// What an archive observed of its dialogs beyond the server's record — which users removed a dialog from their
/// own list, and since when; the views behind a dialog's tombstone — is part of a bundle (`dialogs.jsonl`:
/// `hidden_for`, `deletion_evidence`) and comes back with an import, on every backend, as a message's do.
@Suite("A bundle carries and restores its dialogs' hides and deletion evidence")
struct BundleDialogMarksTests {
    @Test(arguments: TestBackend.all, [ContainerFormat.tarZst, .zip])
    func dialogHidesAndEvidenceSurviveExportAndImport(backend: TestBackend, container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(messages: 400, dialogs: 6, changes: 0, backend: backend)
        defer { fixture.remove() }
        let archive = fixture.archive
        let ids = try await archive.liveDialogIDs().sorted()
        try #require(ids.count >= 3)
        // Two users removed the first dialog from their own lists, at different times; the second was deleted for
        // everyone, the views that lacked it kept as evidence.
        #expect(try await archive.recordDialogHidden(id: ids[0], for: 100_005, at: 1_767_300_100))
        #expect(try await archive.recordDialogHidden(id: ids[0], for: 100_002, at: 1_767_300_000))
        let evidence = DeletionEvidence(absentFrom: [100_003, 100_001], readers: 6, scope: "app")
        #expect(try await archive.tombstoneDialog(id: ids[1], evidence: evidence, at: 1_767_300_200))
        let before = try await Self.dialogs(archive)
        #expect(before.first { $0.id == ids[0] }?.hiddenFor.map(\.user) == [100_002, 100_005])
        #expect(before.first { $0.id == ids[1] }?.deletionEvidence != nil)

        let bundle = fixture.path("bundle")
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        _ = try await BundleExport(selection: everything, container: container, toolVersion: "t")
            .run(archive: archive, to: bundle)
        let records = try Self.dialogRecords(bundle: bundle)
        #expect(
            records[ids[0]]?["hidden_for"]
                == .array([
                    ["user": 100_002, "since": .string(ISO8601.format(1_767_300_000))],
                    ["user": 100_005, "since": .string(ISO8601.format(1_767_300_100))],
                ]))
        #expect(records[ids[1]]?["deletion_evidence"]?["absent_from"] == [100_001, 100_003])
        #expect(records[ids[2]]?["hidden_for"] == nil && records[ids[2]]?["deletion_evidence"] == nil)

        let place = fixture.path("restored")
        try FileManager.default.createDirectory(atPath: place, withIntermediateDirectories: true)
        let restored = try await backend.create(place, ArchiveTime.now())
        if let identity = try BundleImport.identity(ofBundle: bundle) { try await restored.adoptIdentity(identity) }
        _ = try await BundleImport().run(bundle: bundle, into: restored)
        #expect(try await Self.dialogs(restored) == before)
        // The hides are rows of their own too (`dialog_hides`), not only the column shown: recorded again, they
        // are already there; and a later run's hide of another user adds to them.
        #expect(try await !restored.recordDialogHidden(id: ids[0], for: 100_002, at: 1_767_400_000))
        #expect(try await restored.recordDialogHidden(id: ids[0], for: 100_004, at: 1_767_400_000))
        #expect(
            try await Self.dialogs(restored).first { $0.id == ids[0] }?.hiddenFor.map(\.user)
                == [100_002, 100_004, 100_005])
        #expect(try await backend.problems(restored) == [])

        // Imported again, into the archive it came from: nothing changes.
        _ = try await BundleImport().run(bundle: bundle, into: archive)
        #expect(try await Self.dialogs(archive) == before)
    }

    /// Every dialog of the archive, as an export reads them.
    static func dialogs(_ archive: any ArchiveReader) async throws -> [ArchivedDialog] {
        try await archive.withSnapshot { snapshot in
            var all: [ArchivedDialog] = []
            for try await batch in snapshot.dialogs(ids: nil) { all += batch }
            return all
        }
    }

    /// The bundle's `dialogs.jsonl` records by id.
    static func dialogRecords(bundle: String) throws -> [String: JSONValue] {
        let lines = try ExportReading.lines(try ExportReading.entries(bundle)["dialogs.jsonl"])
        return Dictionary(lines.map { ($0["id"]?.stringValue ?? "", $0) }) { first, _ in first }
    }
}
