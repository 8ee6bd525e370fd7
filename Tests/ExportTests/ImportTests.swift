import Foundation
import GRDB
import Testing

@testable import ArchiveStore
@testable import Export

@Suite("import: a bundle restores the archive it came from")
struct ImportTests {
    @Test(arguments: [ContainerFormat.tarGz, .zip])
    func exportImportExportGivesTheSameBundle(container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make()
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = BundleExport(selection: everything, container: container, toolVersion: "t")
        let first = try export.run(archive: fixture.archive, to: fixture.path("first"))

        let restored = try Archive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: fixture.path("first")) {
            try restored.adoptIdentity(identity)
        }
        let summary = try BundleImport().run(bundle: fixture.path("first"), into: restored)
        #expect(summary.inserted == summary.records && summary.records > 0)
        let second = try export.run(archive: restored, to: fixture.path("second"))
        #expect(second.sha256 == first.sha256)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: fixture.path("first")))
                == Data(contentsOf: URL(fileURLWithPath: fixture.path("second"))))
        #expect(try await restored.counts() == fixture.archive.counts().with(runs: 0))

        // Idempotent: again into the restored archive, and into the original one.
        #expect(try BundleImport().run(bundle: fixture.path("first"), into: restored).inserted == 0)
        #expect(try BundleImport().run(bundle: fixture.path("first"), into: fixture.archive).inserted == 0)
        // Search works on restored messages (both indexes were filled).
        let integrity = try await restored.pool.write { db in
            try db.execute(sql: "INSERT INTO message_words(message_words, rank) VALUES ('integrity-check', 1)")
            try db.execute(sql: "INSERT INTO message_trigrams(message_trigrams, rank) VALUES ('integrity-check', 1)")
            return true
        }
        #expect(integrity)
    }

    @Test func aDamagedBundleImportsNothing() async throws {
        let fixture = try await ExportFixture.make(messages: 100, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        _ = try BundleExport(selection: everything, toolVersion: "t").run(
            archive: fixture.archive, to: fixture.path("b"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.path("b")))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: fixture.path("b")))
        let target = try Archive.create(at: fixture.path("target.sqlite"))
        #expect(throws: BundleProblem.self) { try BundleImport().run(bundle: fixture.path("b"), into: target) }
        #expect(try await target.counts().messages == 0)
    }
}

extension ArchiveCounts {
    func with(runs: Int) -> ArchiveCounts {
        var copy = self
        copy.runs = runs
        return copy
    }
}
