import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// An import into an archive that holds the bundle's records keeps the archive's copies, and says so when the
/// bundle's are newer: a warning on standard error naming what was not taken, `not_merged` with `--json`, the audit
/// log — and nothing at all when the bundle is older or the same (the built binary, real bundles).
@Suite("qbarchive import: newer copies of held records reported, not merged (the built binary)")
struct ImportNotMergedCommandTests {
    typealias F = ArchiveFixture

    @Test func aNewerBundleIntoAnOlderArchiveIsReportedAndLeavesTheArchiveAsItWas() async throws {
        // The source archive, exported once (old), then changed by later crawls, exported again (new).
        let source = try await F()
        let sourcePath = source.directory.file("archive.sqlite")
        try await source.write((1...6).map { F.message($0, text: "first-\($0) plum", offset: $0) })
        let old = source.directory.file("old.tar.gz")
        let new = source.directory.file("new.tar.gz")
        #expect(try await CommandRunner.run(["export", "--archive", sourcePath, "--out", old]).status == 0)
        try await source.write(
            [F.message(1, text: "second-1 plum", offset: 1, updatedAt: F.baseTime + 500)], at: F.baseTime + 600)
        #expect(try await source.archive.tombstoneMessages(ids: [F.objectID(2)], at: F.baseTime + 700) == 1)
        #expect(try await source.archive.recordHidden(messageIDs: [F.objectID(3)], for: 2, at: F.baseTime + 800) == 1)
        #expect(try await source.archive.recordDialogHidden(id: F.otherDialogID, for: 3, at: F.baseTime + 800))
        try await source.archive.storeDialogs(
            rawItems: [F.dialog(F.dialogID, name: "Team Berlin").json], at: F.baseTime + 900)
        #expect(try await CommandRunner.run(["export", "--archive", sourcePath, "--out", new]).status == 0)

        // The old bundle into a new archive: nothing to report.
        let target = try TemporaryDirectory()
        let archive = target.file("restored.sqlite")
        let first = try await CommandRunner.run(["import", "--archive", archive, "--allow-unsigned", old])
        #expect(first.status == 0 && first.stderr.isEmpty, "\(first)")

        // The new one into it: five records newer in the bundle, named; the archive keeps its own.
        let second = try await CommandRunner.run(["import", "--archive", archive, "--allow-unsigned", "--json", new])
        #expect(second.status == 0, "\(second)")
        let summary = try JSONValue(parsing: second.stdout)
        let notMerged = try #require(summary["not_merged"])
        #expect(notMerged["records"] == 5, "\(notMerged)")
        #expect(notMerged["messages_edited"] == 1 && notMerged["messages_deleted"] == 1)
        #expect(notMerged["messages_hidden"] == 1 && notMerged["dialogs_hidden"] == 1)
        #expect(notMerged["dialogs_changed"] == 1 && notMerged["dialogs_deleted"] == 0)
        #expect(summary["inserted"] == 0, "\(summary)")
        #expect(second.stderr.contains("warning: 5 records of the bundle were already in \(archive)"), "\(second)")
        for part in [
            "1 message edited", "1 message deleted for everyone", "1 message hidden by a user",
            "1 dialog hidden by a user", "1 dialog renamed or with other occupants", "message \(F.objectID(1))",
            "import it into a new archive",
        ] {
            #expect(second.stderr.contains(part), "\(part): \(second.stderr)")
        }
        let found = try await CommandRunner.run(["search", "--archive", archive, "plum", "--count"])
        #expect(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "6", "\(found)")
        let kept = try await CommandRunner.run(["search", "--archive", archive, "second-1", "--count"])
        #expect(kept.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "the archive's copy stays")
        let log = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
        #expect(log.stdout.contains("not_merged") && log.stdout.contains("messages_edited"), "\(log.stdout)")

        // The same bundle into a new archive, and the old bundle into the archive it came from: nothing newer.
        let fresh = try await CommandRunner.run([
            "import", "--archive", target.file("fresh.sqlite"), "--allow-unsigned", new,
        ])
        #expect(fresh.status == 0 && fresh.stderr.isEmpty, "\(fresh)")
        let back = try await CommandRunner.run(["import", "--archive", sourcePath, "--allow-unsigned", "--json", old])
        #expect(back.status == 0 && back.stderr.isEmpty, "\(back)")
        #expect(try JSONValue(parsing: back.stdout)["not_merged"]?["records"] == 0)
        let same = try await CommandRunner.run(["import", "--archive", sourcePath, "--allow-unsigned", new])
        #expect(same.status == 0 && same.stderr.isEmpty, "\(same)")
    }
}
