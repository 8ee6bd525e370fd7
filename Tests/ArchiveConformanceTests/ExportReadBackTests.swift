import Archive
import ArchiveTestSupport
import Crypto
import Foundation
import QueryLanguage
import QuickBlox
import Search
import Testing

@testable import Export

@Suite("Exports: JSON Lines, CSV and bundles read back equal the archive")
struct ExportReadBackTests {
    static let version = "0.1.0-test"

    /// Every archived message, in export order, with names.
    @Test(arguments: TestBackend.all) func jsonLinesReadBackEqualTheArchive(backend: TestBackend) async throws {
        let fixture = try await ExportFixture.make(backend: backend)
        defer { fixture.remove() }
        let hits = try await ExportReading.archived(fixture.archive)
        #expect(hits.contains { $0.message.edited > 0 } && hits.contains { $0.message.deletedAt != nil })
        let path = fixture.path("all.jsonl")
        let summary = try await MessageExport(
            selection: try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0),
            format: .jsonl, raw: true
        )
        .run(archive: fixture.archive, to: path)
        #expect(summary.messages == hits.count)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(summary.sha256 == ExportReading.sha256(data) && summary.bytes == data.count)
        let lines = data.split(separator: 10, omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == hits.count)
        for (line, hit) in zip(lines, hits) {
            let object = try JSONValue(parsing: Array(line))
            #expect(object["id"]?.stringValue == hit.message.id)
            #expect(object["text"] == (hit.message.text.map(JSONValue.string) ?? .null))
            #expect(object["sender_login"] == (hit.senderLogin.map(JSONValue.string) ?? .null))
            #expect(object["edited"] == .int(hit.message.edited))
            #expect(object["deleted_at"] == (hit.message.deletedAt.map { .string(ISO8601.format($0)) } ?? .null))
            #expect(object["raw"] == (try JSONValue(parsing: hit.message.raw)))
            #expect(object["attachments"] == (try JSONValue(parsing: hit.message.attachmentsJSON)))
            // Stable key order: the line is its own canonical serialization.
            #expect(object.serialized() == Array(line))
        }
    }

    @Test(arguments: TestBackend.all, [false, true])
    func csvReadsBackWithAStrictParser(backend: TestBackend, excel: Bool) async throws {
        let fixture = try await ExportFixture.make(backend: backend)
        defer { fixture.remove() }
        let hits = try await ExportReading.archived(fixture.archive)
        let path = fixture.path("all.csv")
        _ = try await MessageExport(
            selection: try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0), format: .csv,
            excel: excel
        )
        .run(archive: fixture.archive, to: path)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes.starts(with: [0xEF, 0xBB, 0xBF]) == excel)
        if excel { bytes.removeFirst(3) }
        var text = String(decoding: bytes, as: UTF8.self)
        if excel {
            #expect(text.hasSuffix("\r\n"))
            text = text.replacingOccurrences(of: "\r\n", with: "\n")
        }
        let records = try StrictCSV.parse(text)
        #expect(records.first == ExportRecord.csvColumns)
        #expect(records.count == hits.count + 1)
        for (record, hit) in zip(records.dropFirst(), hits) {
            #expect(record.count == ExportRecord.csvColumns.count)
            #expect(record[0] == hit.message.id)
            #expect(record[12] == excelText(hit.message.text ?? "", excel))
            #expect(record[13] == hit.message.attachmentsJSON)
        }
    }

    private func excelText(_ text: String, _ excel: Bool) -> String {
        excel ? text.replacingOccurrences(of: "\r\n", with: "\n") : text
    }

    @Test(arguments: TestBackend.all) func aSelectionExportsOnlyItsMessagesAndWhatExplainsThem(backend: TestBackend)
        async throws
    {
        let fixture = try await ExportFixture.make(backend: backend)
        defer { fixture.remove() }
        let all = try await ExportReading.archived(fixture.archive)
        let dialog = all[all.count / 2].message.dialogID
        let selection = try ExportSelection(
            whereText: "not deleted:true", dialogID: dialog, since: nil, until: nil, now: 0)
        let expected = all.filter { $0.message.dialogID == dialog && $0.message.deletedAt == nil }
        let path = fixture.path("one.tar.gz")
        let summary = try await BundleExport(selection: selection, toolVersion: Self.version).run(
            archive: fixture.archive, to: path)
        #expect(summary.messages == expected.count)
        let entries = try ExportReading.entries(path)
        #expect(entries.keys.filter { $0.hasPrefix("transcripts/") } == ["transcripts/\(dialog).txt"])
        let dialogs = try ExportReading.lines(entries["dialogs.jsonl"])
        #expect(dialogs.map { $0["id"]?.stringValue } == [dialog])
        let senders = Set(expected.compactMap(\.message.senderID))
        let users = Set(try ExportReading.lines(entries["users.jsonl"]).compactMap { $0["id"]?.lenientInt })
        #expect(senders.isSubset(of: users))
        #expect(summary.manifest.body["selection"]?["dialog"] == .string(dialog))
    }

    @Test(arguments: TestBackend.all, ContainerFormat.allCases)
    func bundlesHoldEveryFileAndCommonToolsAcceptThem(backend: TestBackend, container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(backend: backend)
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let path = fixture.path("all.\(container.fileExtension)")
        let summary = try await BundleExport(selection: everything, container: container, toolVersion: Self.version)
            .run(archive: fixture.archive, to: path)
        let entries = try ExportReading.entries(path)
        let names = Array(entries.keys).sorted()
        for name in [
            "README.txt", "deletions.jsonl", "dialogs.jsonl", "manifest.json", "membership.jsonl", "messages.csv",
            "messages.jsonl", "revisions.jsonl", "users.jsonl",
        ] {
            #expect(names.contains(name), "\(name)")
        }
        // messages.jsonl in the bundle is byte for byte the JSON Lines export with raw records.
        let jsonl = fixture.path("all.jsonl")
        _ = try await MessageExport(selection: everything, format: .jsonl, raw: true).run(
            archive: fixture.archive, to: jsonl)
        #expect(entries["messages.jsonl"] == Array(try Data(contentsOf: URL(fileURLWithPath: jsonl))))
        let counts = try await fixture.archive.counts()
        #expect(try ExportReading.lines(entries["users.jsonl"]).count == counts.users)
        #expect(try ExportReading.lines(entries["dialogs.jsonl"]).count == counts.dialogs)
        #expect(try ExportReading.lines(entries["revisions.jsonl"]).count == counts.revisions)
        #expect(
            try ExportReading.lines(entries["deletions.jsonl"]).count == counts.deletedMessages + counts.deletedDialogs)
        #expect(summary.manifest.files.count == entries.count - 1)
        let deleted = try await #require(
            try ExportReading.archived(fixture.archive).first { $0.message.deletedAt != nil })
        let transcript = String(
            decoding: try #require(entries["transcripts/\(deleted.message.dialogID).txt"]), as: UTF8.self)
        #expect(transcript.contains("[deleted: gone from the server as of"))
        let sidecar = try String(contentsOfFile: path + ".sha256", encoding: .utf8)
        #expect(sidecar == "\(summary.sha256)  all.\(container.fileExtension)\n")

        switch container {
        case .tarGz:
            let listing = try ExportFixture.tool("/usr/bin/tar", ["-tzf", path])
            #expect(listing.status == 0 && listing.output.hasPrefix("manifest.json\n"), "\(listing.output)")
        case .tarZst:
            #expect(try ExportFixture.tool("/usr/bin/zstd", ["-t", path]).status == 0)
            #expect(try ExportFixture.tool("/usr/bin/tar", ["--zstd", "-tf", path]).status == 0)
        case .zip:
            let test = try ExportFixture.tool("/usr/bin/unzip", ["-t", path])
            #expect(test.status == 0 && test.output.contains("No errors detected"), "\(test.output)")
        }
        let report = try BundleVerifier().verify(path: path)
        #expect(report.canonical && report.sidecarChecked && report.format == container)
    }

    @Test(arguments: TestBackend.all, ContainerFormat.allCases)
    func twoExportsAreByteIdentical(backend: TestBackend, container: ContainerFormat) async throws {
        let fixture = try await ExportFixture.make(messages: 400, dialogs: 5, changes: 40, backend: backend)
        defer { fixture.remove() }
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = BundleExport(selection: everything, container: container, toolVersion: Self.version)
        _ = try await export.run(archive: fixture.archive, to: fixture.path("a"))
        try await Task.sleep(for: .milliseconds(1100))
        _ = try await export.run(archive: fixture.archive, to: fixture.path("b"))
        let a = try Data(contentsOf: URL(fileURLWithPath: fixture.path("a")))
        #expect(a == (try Data(contentsOf: URL(fileURLWithPath: fixture.path("b")))))
        var dated = export
        dated.createdAt = 1_700_000_000
        let c = try await dated.run(archive: fixture.archive, to: fixture.path("c"))
        #expect(c.manifest.body["created_at"] == .string("2023-11-14T22:13:20Z"))
        #expect(a != (try Data(contentsOf: URL(fileURLWithPath: fixture.path("c")))))
        // Nothing but the bundle and its checksum file is left in the directory (staging removed).
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path).filter {
            $0.hasPrefix(".")
        }
        #expect(left.isEmpty, "\(left)")
    }

    /// A new bundle over an earlier one must never sit beside the earlier one's checksum file: if the
    /// export stops between the bundle's rename and its checksum file's (here the checksum file cannot be
    /// created; in the chaos suite a SIGKILL at that instant), `verify` and `sha256sum -c` must still pass.
    @Test(arguments: TestBackend.all) func aStoppedExportLeavesNoStaleChecksumBesideTheNewBundle(backend: TestBackend)
        async throws
    {
        let fixture = try await ExportFixture.make(messages: 300, dialogs: 4, changes: 20, backend: backend)
        defer { fixture.remove() }
        let path = fixture.path("case.tar.gz")
        let some = try ExportSelection(whereText: "deleted = true", dialogID: nil, since: nil, until: nil, now: 0)
        _ = try await BundleExport(selection: some, container: .tarGz, toolVersion: Self.version)
            .run(archive: fixture.archive, to: path)
        #expect(try BundleVerifier().verify(path: path).sidecarChecked)
        // The checksum file's temporary name is taken by a directory, so it cannot be written.
        let blocker = fixture.path(".case.tar.gz.sha256.partial-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(atPath: blocker, withIntermediateDirectories: false)
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        // Not asked to replace: refused, and the earlier bundle and its checksum stay as they were.
        await #expect(throws: ExportError.exists(path: path)) {
            _ = try await BundleExport(selection: everything, container: .tarGz, toolVersion: Self.version)
                .run(archive: fixture.archive, to: path)
        }
        #expect(try BundleVerifier().verify(path: path).sidecarChecked)
        // Asked to replace (--force), and stopped between the bundle and its checksum file.
        var replacing = BundleExport(selection: everything, container: .tarGz, toolVersion: Self.version)
        replacing.replace = true
        await #expect(throws: ExportError.self) { _ = try await replacing.run(archive: fixture.archive, to: path) }
        let report = try BundleVerifier().verify(path: path)
        #expect(report.canonical && !report.sidecarChecked)
    }
}
