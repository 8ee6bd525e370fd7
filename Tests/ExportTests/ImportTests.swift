import ArchiveTestSupport
import Foundation
import Testing

@testable import ArchiveSQLite
@testable import Export

@Suite("import: a bundle restores the archive it came from")
struct ImportTests {
    @Test(arguments: [ContainerFormat.tarGz, .zip])
    func exportImportExportGivesTheSameBundle(container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make()
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = BundleExport(selection: everything, container: container, toolVersion: "t")
        let first = try await export.run(archive: fixture.archive, to: fixture.path("first"))

        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: fixture.path("first")) {
            try await restored.adoptIdentity(identity)
        }
        let summary = try await BundleImport().run(bundle: fixture.path("first"), into: restored)
        #expect(summary.inserted == summary.records && summary.records > 0)
        let second = try await export.run(archive: restored, to: fixture.path("second"))
        #expect(second.sha256 == first.sha256)
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: fixture.path("first")))
                == Data(contentsOf: URL(fileURLWithPath: fixture.path("second"))))
        #expect(try await restored.counts() == fixture.archive.counts().with(runs: 0))

        // Idempotent: again into the restored archive, and into the original one.
        await #expect(try BundleImport().run(bundle: fixture.path("first"), into: restored).inserted == 0)
        await #expect(try BundleImport().run(bundle: fixture.path("first"), into: fixture.archive).inserted == 0)
        // Search works on restored messages (both indexes were filled).
        #expect(try await restored.integrityProblems() == [])
    }

    /// Small batches, few or many of them waiting while the archive stores one (and SQLite holding many in one
    /// transaction): the batches reach the archive in the bundle's order — dialogs before their messages, messages
    /// before their revisions, or foreign keys would refuse them — each once, and the restored archive exports the
    /// same bundle.
    @Test(arguments: [(1, 1), (7, 2), (13, 40)])
    func batchesWaitingForTheArchiveAreStoredInOrder(batchSize: Int, batchesAhead: Int) async throws {
        let fixture = try await ExportFixture.make(messages: 150, dialogs: 4, changes: 12)
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = BundleExport(selection: everything, container: .tarGz, toolVersion: "t")
        let first = try await export.run(archive: fixture.archive, to: fixture.path("first"))

        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: fixture.path("first")) {
            try await restored.adoptIdentity(identity)
        }
        var importer = BundleImport()
        (importer.batchSize, importer.batchesAhead) = (batchSize, batchesAhead)
        let summary = try await importer.run(bundle: fixture.path("first"), into: restored)
        #expect(summary.inserted == summary.records && summary.records > 150)
        #expect(try await export.run(archive: restored, to: fixture.path("second")).sha256 == first.sha256)
        #expect(try await importer.run(bundle: fixture.path("first"), into: restored).inserted == 0)
        #expect(try await restored.integrityProblems() == [])
    }

    @Test func aDamagedBundleImportsNothing() async throws {
        let fixture = try await ExportFixture.make(messages: 100, dialogs: 3, changes: 10)
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        _ = try await BundleExport(selection: everything, toolVersion: "t").run(
            archive: fixture.archive, to: fixture.path("b"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.path("b")))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: URL(fileURLWithPath: fixture.path("b")))
        let target = try SQLiteArchive.create(at: fixture.path("target.sqlite"))
        await #expect(throws: BundleProblem.self) {
            try await BundleImport().run(bundle: fixture.path("b"), into: target)
        }
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

@Suite("Split bundles: --max-part-size")
struct SplitBundleTests {
    @Test func partsVerifyAsASetAndRestoreTheWholeArchive() async throws {
        let fixture = try await ExportFixture.make()
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let whole = try await BundleExport(selection: everything, toolVersion: "t").run(
            archive: fixture.archive, to: fixture.path("whole.tar.gz"))
        let split = try await BundleExport(selection: everything, toolVersion: "t", maxPartSize: 600 * 1024).run(
            archive: fixture.archive, to: fixture.path("split.tar.gz"))
        #expect(split.parts.count > 1)
        #expect(split.parts.map { URL(fileURLWithPath: $0.path).lastPathComponent }.first == "split.part01.tar.gz")
        // Every file of the whole bundle is in exactly one part, unchanged; README.txt and SHA256SUMS (of its
        // own files) are in each.
        let inParts = split.parts.flatMap {
            $0.manifest.files.filter { !BundleManifest.perPartFiles.contains($0.path) }
        }
        #expect(
            inParts.sorted { $0.path < $1.path }
                == whole.manifest.files.filter { !BundleManifest.perPartFiles.contains($0.path) })
        #expect(split.parts.allSatisfy { $0.manifest.files.contains { $0.path == "README.txt" } })
        #expect(split.parts.allSatisfy { $0.bytes <= 600 * 1024 || $0.manifest.files.count == 2 })

        let reports = try split.parts.map { try BundleVerifier().verify(path: $0.path) }
        try BundleVerifier.checkComplete(reports, paths: split.parts.map(\.path))
        #expect(throws: BundleProblem(file: "part 2", reason: "of \(split.parts.count) is missing")) {
            try BundleVerifier.checkComplete(
                reports.enumerated().filter { $0.offset != 1 }.map(\.element), paths: [])
        }

        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: split.parts[0].path) {
            try await restored.adoptIdentity(identity)
        }
        _ = try await BundleImport().run(bundles: split.parts.map(\.path).reversed(), into: restored)
        let again = try await BundleExport(selection: everything, toolVersion: "t").run(
            archive: restored, to: fixture.path("again.tar.gz"))
        #expect(again.sha256 == whole.sha256)
    }

    @Test(arguments: [
        ("case.tar.gz", 2, 3, "case.part02.tar.gz"), ("case", 1, 12, "case.part01"), ("x.tar.gz", 1, 1, "x.tar.gz"),
    ])
    func partNames(path: String, number: Int, count: Int, expected: String) {
        #expect(BundleExport.partPath(path, number: number, of: count, container: .tarGz) == expected)
    }
}
