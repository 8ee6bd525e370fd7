import Archive
import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

/// An erasure outlives the bundles made before it: importing one into the archive erases again what it brings
/// back (through the built binary).
@Suite("qbarchive import after an erasure: what comes back is erased again (the built binary)")
struct ImportAfterErasureCommandTests {
    typealias F = ArchiveFixture

    @Test func anOldBundleBringsNothingOfAnErasedPersonBack() async throws {
        // The bundle: messages 1…9 (sender 2 wrote 1, 4 and 7), message 1 edited once.
        let old = try await F()
        try await old.write((1...9).map { Self.message($0) })
        try await old.write(
            [F.message(1, text: "unique-new-1 kiwi", offset: 1, updatedAt: F.baseTime + 500)], at: F.baseTime + 600)
        let bundle = old.directory.file("before.tar.gz")
        let exported = try await CommandRunner.run([
            "export", "--archive", old.directory.file("archive.sqlite"), "--out", bundle,
        ])
        #expect(exported.status == 0, "\(exported.stderr)")

        // The archive: messages 1…3 and the same edit; sender 2 is erased.
        let fixture = try await F()
        let archive = fixture.directory.file("archive.sqlite")
        try await fixture.write((1...3).map { Self.message($0) })
        try await fixture.write(
            [F.message(1, text: "unique-new-1 kiwi", offset: 1, updatedAt: F.baseTime + 500)], at: F.baseTime + 600)
        let erased = try await CommandRunner.run(["erase", "--archive", archive, "--user", "2", "--reason", "req 7"])
        #expect(erased.status == 0, "\(erased.stderr)")

        let imported = try await CommandRunner.run([
            "import", "--archive", archive, "--allow-unsigned", "--json", bundle,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try JSONValue(parsing: imported.stdout)
        #expect(summary["erased_again"] == 2, "\(summary)")  // messages 4 and 7, new to this archive
        // Message 1, erased here, is no newer copy in the bundle: the archive erased it on purpose.
        #expect(summary["not_merged"]?["records"] == 0 && imported.stderr.isEmpty, "\(summary)")

        // Nothing of sender 2 in any byte of the archive; everyone else's texts all there.
        let bytes = try ["", "-wal", "-shm"].map { suffix -> Data in
            (try? Data(contentsOf: URL(fileURLWithPath: archive + suffix))) ?? Data()
        }.reduce(Data(), +)
        for number in [1, 4, 7] {
            #expect(bytes.range(of: Data("unique-old-\(number) ".utf8)) == nil, "message \(number)")
        }
        #expect(bytes.range(of: Data("unique-new-1 ".utf8)) == nil)
        for number in [2, 3, 5, 6, 8, 9] {
            #expect(bytes.range(of: Data("unique-old-\(number) ".utf8)) != nil, "message \(number)")
        }
        let found = try await CommandRunner.run(["search", "--archive", archive, "kiwi", "--count"])
        #expect(found.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "6", "\(found)")
        let check = try await CommandRunner.run(["check", "--archive", archive])
        #expect(check.status == 0, "\(check)")
        let log = try await CommandRunner.run(["audit", "list", "--archive", archive, "--json"])
        #expect(log.stdout.contains("re-applied"), "the erasure again is audited")
        // Message 1 stayed erased (its skeleton was kept, so it was not erased again), but the bundle named its
        // file: no row of it may come back, or a crawl with --attachments files would fetch it again.
        #expect(bytes.range(of: Data("uid-kiwi-1".utf8)) == nil && bytes.range(of: Data("kiwi-1.png".utf8)) == nil)
        let rows = try await DatabaseQueue(path: archive).read { db in
            try String.fetchAll(db, sql: "SELECT key FROM attachment_files ORDER BY key")
        }
        #expect(rows == ["uid:uid-kiwi-5"], "\(rows)")
    }

    /// Messages 1…9 (sender 2 wrote 1, 4 and 7); 1 and 5 name a file each.
    static func message(_ number: Int) -> Message {
        F.message(
            number, text: "unique-old-\(number) kiwi", offset: number,
            attachments: [1, 5].contains(number)
                ? [
                    Attachment(
                        type: "image", id: "blob\(number)", uid: "uid-kiwi-\(number)", name: "kiwi-\(number).png")
                ]
                : [])
    }
}
