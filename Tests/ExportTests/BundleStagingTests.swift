import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite
@testable import Export

/// A bundle's message files are written on a thread of their own while the staging loop goes on
/// (``MessageFilesWriter``): across many batches they must hold every message once, in order, and a failure of
/// either thread must end the export with its error, leaving nothing behind.
@Suite("A bundle's message files written beside the staging loop")
struct BundleStagingTests {
    static let everything = try! ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)

    /// Six thousand messages: more batches than the writer's queue holds.
    static func fixture() async throws -> ExportFixture {
        try await ExportFixture.make(messages: 6000, dialogs: 12, changes: 300)
    }

    @Test func everyMessageOnceInOrderInBothFiles() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        let path = fixture.path("many.tar.zst")
        let summary = try await BundleExport(selection: Self.everything, container: .tarZst, toolVersion: "t")
            .run(archive: fixture.archive, to: path)
        let entries = try ExportReading.entries(path)
        let json = try ExportReading.lines(entries["messages.jsonl"]).map { $0["id"]?.stringValue ?? "" }
        let rows = try StrictCSV.parse(String(decoding: try #require(entries["messages.csv"]), as: UTF8.self))
        let idColumn = try #require(rows.first?.firstIndex(of: "id"))
        let csv = rows.dropFirst().map { $0[idColumn] }
        // The archive's messages in the bundle's order: by dialog, then as sent.
        let expected = try await fixture.sqlite.pool.read { db in
            try String.fetchAll(db, sql: "SELECT id FROM messages ORDER BY dialog_id, date_sent, id")
        }
        #expect(expected.count > 4_000)
        #expect(json == expected)
        #expect(csv == expected)
        let listed = Dictionary(uniqueKeysWithValues: summary.manifest.files.map { ($0.path, $0.records) })
        #expect(listed["messages.jsonl"] == expected.count && listed["messages.csv"] == expected.count)
        #expect(summary.manifest.body["counts"]?["messages"] == .int(expected.count))
        #expect(try BundleVerifier().verify(path: path).canonical)
    }

    @Test func anExportOverItsBudgetFailsWithTheQuotaAndLeavesNothing() async throws {
        let fixture = try await Self.fixture()
        defer { fixture.remove() }
        let whole = try await BundleExport(selection: Self.everything, container: .tarZst, toolVersion: "t")
            .run(archive: fixture.archive, to: fixture.path("whole.tar.zst"))
        let staged = whole.manifest.files.map(\.size).reduce(0, +)
        // The budget runs out in the first batch, midway through the messages, near their end, and while the
        // container is written (after every staged file).
        for limit in [4_096, staged / 3, staged * 9 / 10, staged + 1] {
            let path = fixture.path("capped-\(limit).tar.zst")
            var export = BundleExport(selection: Self.everything, container: .tarZst, toolVersion: "t")
            export.maxBytes = limit
            await #expect(throws: ExportError.quotaExceeded(limit: limit), "\(limit) of \(staged)") {
                _ = try await export.run(archive: fixture.archive, to: path)
            }
            #expect(!FileManager.default.fileExists(atPath: path))
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
            #expect(!left.contains { $0.hasPrefix(".qbarchive-staging") }, "\(left)")
        }
    }
}
