import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import ArchiveSQLite
@testable import Export

@Suite("Bundles carry the attachment files, verify them, and import restores them")
struct BundleAttachmentTests {
    typealias F = AttachmentFixture

    static let everything = try! ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)

    /// The keys whose files are stored, and the order of their SHA-256s in a bundle.
    static let storedKeys = ["uid:u-new", "uid:u-old", "uid:u-photo", "uid:u-shared"]

    @Test(arguments: ContainerFormat.allCases)
    func aBundleHoldsEachStoredFileOnceAfterTheOtherFiles(container: ContainerFormat) async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let path = fixture.path("case.\(container.fileExtension)")
        let summary = try await BundleExport(selection: Self.everything, container: container, toolVersion: "t")
            .run(archive: fixture.archive, to: path)
        let entries = try F.entries(path)
        let hashes = Self.storedKeys.map(fixture.sha256).sorted()
        let attachments = entries.filter { $0.path.hasPrefix("attachments/") }
        // Each stored file once (the shared one too), by SHA-256, after every other file.
        #expect(attachments.map(\.path) == hashes.map { "attachments/\($0)" })
        #expect(entries.suffix(attachments.count).map(\.path) == attachments.map(\.path))
        for key in Self.storedKeys {
            let bytes = try #require(attachments.first { $0.path == "attachments/\(fixture.sha256(key))" }?.bytes)
            #expect(bytes == fixture.stored[key], "\(key)")
        }
        // The manifest lists them like every other file, and says they are included.
        for (hash, entry) in zip(hashes, attachments) {
            let listed = try #require(summary.manifest.files.first { $0.path == entry.path })
            #expect(listed.sha256 == hash && listed.size == entry.bytes.count && listed.records == nil)
        }
        let included = try #require(summary.manifest.body["attachments"])
        #expect(included["included"] == .bool(true) && included["files"] == .int(4))
        #expect(included["bytes"] == .int(fixture.stored.values.map(\.count).reduce(0, +)))
        #expect(
            included["keys"]
                == .object(["ok": 4, "too_large": 1, "listed": 1, "gone": 1, "external": 1]))
        let report = try BundleVerifier().verify(path: path)
        #expect(report.canonical && report.manifest.files.count == entries.count - 1)
    }

    @Test func messagesRevisionsAndTranscriptsPointToTheFiles() async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let path = fixture.path("case.tar.gz")
        _ = try await BundleExport(selection: Self.everything, toolVersion: "t").run(archive: fixture.archive, to: path)
        let entries = Dictionary(uniqueKeysWithValues: try F.entries(path).map { ($0.path, $0.bytes) })
        let messages = try ExportReading.lines(entries["messages.jsonl"])
        func files(_ number: Int) -> [JSONValue] {
            let id = String(format: "65e1b00000000000000000%02x", number)
            return messages.first { $0["id"]?.stringValue == id }?["attachment_files"]?.arrayValue ?? []
        }
        let photo = fixture.sha256("uid:u-photo")
        #expect(
            files(1) == [
                .object([
                    "content_type": "image/jpeg", "key": "uid:u-photo", "note": nil,
                    "path": .string("attachments/\(photo)"),
                    "sha256": .string(photo), "size": 3000, "status": "ok",
                ])
            ])
        #expect(files(2).count == 1 && files(2) == files(6))  // attached twice: named once
        #expect(files(3).first?["status"] == "too_large" && files(3).first?["size"] == 5_000_000)
        #expect(files(3).first?["note"] == "not archived: too large" && files(3).first?["path"] == JSONValue.null)
        #expect(files(4).first?["status"] == "listed" && files(4).first?["note"] == "not archived: not downloaded")
        #expect(files(5).map { $0["key"] } == ["id:4711", "url:https://elsewhere.example/x.png"])
        #expect(files(5).map { $0["status"] } == ["gone", "external"])
        #expect(files(7).first?["path"] == .string("attachments/\(fixture.sha256("uid:u-new"))"))
        #expect(messages.allSatisfy { $0["attachment_files"]?.arrayValue != nil })
        // The earlier version of the edited message names its own file, which the bundle holds too.
        let revision = try #require(try ExportReading.lines(entries["revisions.jsonl"]).first)
        let old = fixture.sha256("uid:u-old")
        #expect(revision["attachment_files"]?.arrayValue?.first?["path"] == .string("attachments/\(old)"))
        #expect(entries["attachments/\(old)"] == fixture.stored["uid:u-old"])

        let transcript = String(decoding: try #require(entries["transcripts/\(F.dialogA).txt"]), as: UTF8.self)
        #expect(transcript.contains("[attachment: image, name photo.jpg, uid u-photo → attachments/\(photo)]"))
        #expect(transcript.contains("[attachment: video, name party.mp4, uid u-big (not archived: too large)]"))
        #expect(transcript.contains("[attachment: location]"))
        #expect(transcript.contains("(not archived: gone from the server)"))
        // The CSV column: paths of held files, else the status.
        let csv = try StrictCSV.parse(String(decoding: try #require(entries["messages.csv"]), as: UTF8.self))
        #expect(csv.first == ExportRecord.csvColumns)
        let column = try #require(ExportRecord.csvColumns.firstIndex(of: "attachment_files"))
        #expect(csv[1][column] == "attachments/\(photo)")
        #expect(csv[5][column] == "gone external")
    }

    @Test(arguments: ContainerFormat.allCases)
    func aChangedAttachmentByteFailsVerificationNamingTheFile(container: ContainerFormat) async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let path = fixture.path("case.\(container.fileExtension)")
        let summary = try await BundleExport(selection: Self.everything, container: container, toolVersion: "t")
            .run(archive: fixture.archive, to: path)
        // The same container, written again with one byte of one attachment changed (no checksum file).
        let target = "attachments/\(fixture.sha256("uid:u-shared"))"
        let tampered = fixture.path("tampered.\(container.fileExtension)")
        let output = try OutputFile(path: tampered)
        let writer = try ContainerWriter(format: container, encoding: .current) { bytes in try output.write(bytes) }
        for var entry in try F.entries(path) {
            if entry.path == target { entry.bytes[777] ^= 0x01 }
            try writer.beginEntry(
                path: entry.path, size: entry.bytes.count, modificationTime: summary.manifest.entryTime)
            try writer.write(entry.bytes)
        }
        try writer.finish()
        try output.commit()
        #expect(throws: BundleProblem(file: target, reason: "does not match its SHA-256 in the manifest")) {
            try BundleVerifier().verify(path: tampered)
        }
        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        await #expect(throws: BundleProblem.self) { try await BundleImport().run(bundle: tampered, into: restored) }
        #expect(restored.fileStore.allDigests().isEmpty)
    }

    @Test func noAttachmentsNamesTheFilesAndLeavesThemOut() async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let path = fixture.path("lean.zip")
        let summary = try await BundleExport(
            selection: Self.everything, container: .zip, toolVersion: "t", attachments: false
        )
        .run(archive: fixture.archive, to: path)
        let entries = try F.entries(path)
        #expect(!entries.contains { $0.path.hasPrefix("attachments/") })
        #expect(summary.manifest.body["attachments"]?["included"] == .bool(false))
        #expect(summary.manifest.body["attachments"]?["files"] == .int(4))
        let messages = try ExportReading.lines(entries.first { $0.path == "messages.jsonl" }?.bytes)
        let photo = try #require(messages.first?["attachment_files"]?.arrayValue?.first)
        #expect(photo["sha256"] == .string(fixture.sha256("uid:u-photo")) && photo["path"] == JSONValue.null)
        #expect(photo["note"] == "stored in the archive, left out of this bundle (--no-attachments)")
        let transcript = try #require(entries.first { $0.path == "transcripts/\(F.dialogA).txt" })
        #expect(
            String(decoding: transcript.bytes, as: UTF8.self).contains(
                "(stored as sha256 \(fixture.sha256("uid:u-photo")), left out of this bundle)"))
        #expect(try BundleVerifier().verify(path: path).canonical)

        // Imported, the references come back; the files stay to be fetched, absences keep their reasons.
        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        let imported = try await BundleImport().run(bundle: path, into: restored)
        #expect(imported.files == 0 && restored.fileStore.allDigests().isEmpty)
        let rows = try await restored.files(keys: ["uid:u-photo", "uid:u-big", "id:4711"])
        #expect(rows["uid:u-photo"]?.status == .listed)
        #expect(rows["uid:u-big"]?.status == .tooLarge && rows["uid:u-big"]?.size == 5_000_000)
        #expect(rows["id:4711"]?.status == .gone)
    }

    @Test(arguments: [ContainerFormat.tarGz, .tarZst, .zip])
    func importRestoresTheFilesAndExportsTheSameBundleAgain(container: ContainerFormat) async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let export = BundleExport(selection: Self.everything, container: container, toolVersion: "t")
        let name = "first.\(container.fileExtension)"
        let first = try await export.run(archive: fixture.archive, to: fixture.path(name))

        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: fixture.path(name)) {
            try await restored.adoptIdentity(identity)
        }
        let summary = try await BundleImport().run(bundle: fixture.path(name), into: restored)
        #expect(summary.files == 4 && summary.fileBytes == fixture.stored.values.map(\.count).reduce(0, +))
        let rows = try await restored.files(keys: Self.storedKeys)
        for key in Self.storedKeys {
            let sha256 = fixture.sha256(key)
            #expect(restored.fileStore.verify(sha256) == .ok(size: fixture.stored[key]!.count), "\(key)")
            #expect(rows[key]?.status == .ok && rows[key]?.sha256 == sha256, "\(key)")
            #expect(rows[key]?.source == "import of \(name)", "\(key)")
        }
        #expect(rows["uid:u-photo"]?.contentType == "image/jpeg")
        let report = try await restored.verifyFileStore()
        #expect(report.isIntact && report.checked == 4 && report.unreferenced.isEmpty)

        let second = try await export.run(archive: restored, to: fixture.path("second"))
        #expect(second.sha256 == first.sha256)
        // Idempotent: again into the restored archive, and into the original one.
        await #expect(try BundleImport().run(bundle: fixture.path(name), into: restored).inserted == 0)
        await #expect(try BundleImport().run(bundle: fixture.path(name), into: fixture.archive).inserted == 0)
        #expect(try await restored.files(keys: ["uid:u-photo"])["uid:u-photo"]?.source == "import of \(name)")
        #expect(try await fixture.archive.files(keys: ["uid:u-photo"])["uid:u-photo"]?.source == "GET /blobs/u-photo")
        await #expect(try export.run(archive: restored, to: fixture.path("third")).sha256 == first.sha256)
    }

    @Test func splitPartsNeverSplitAFileAndEachVerifiesAlone() async throws {
        let fixture = try await F.make(big: true)
        defer { fixture.remove() }
        let limit = 100 * 1024
        let whole = try await BundleExport(selection: Self.everything, toolVersion: "t").run(
            archive: fixture.archive, to: fixture.path("whole.tar.gz"))
        let split = try await BundleExport(selection: Self.everything, toolVersion: "t", maxPartSize: limit).run(
            archive: fixture.archive, to: fixture.path("split.tar.gz"))
        #expect(split.parts.count > 2)
        let inParts = split.parts.flatMap {
            $0.manifest.files.filter { !BundleManifest.perPartFiles.contains($0.path) }
        }
        #expect(
            inParts.map(\.path).sorted()
                == whole.manifest.files.filter { !BundleManifest.perPartFiles.contains($0.path) }.map(\.path).sorted()
        )
        let big = "attachments/\(fixture.sha256("uid:u-new"))"
        for part in split.parts {
            // Alone: its manifest, its files whole, nothing else.
            let report = try BundleVerifier().verify(path: part.path)
            let entries = try F.entries(part.path)
            for file in report.manifest.files {
                #expect(entries.first { $0.path == file.path }?.bytes.count == file.size, "\(file.path)")
            }
            let holdsBig = part.manifest.files.contains { $0.path == big }
            if holdsBig { #expect(part.manifest.files.count == 3, "the large file has a part of its own") }
            #expect(part.bytes <= limit || holdsBig, "\(part.path): \(part.bytes) bytes")
        }
        #expect(split.parts.contains { $0.bytes > limit })  // only the part of the file larger than a part

        let restored = try SQLiteArchive.create(at: fixture.path("restored.sqlite"))
        if let identity = try BundleImport.identity(ofBundle: split.parts[0].path) {
            try await restored.adoptIdentity(identity)
        }
        let summary = try await BundleImport().run(bundles: split.parts.map(\.path).reversed(), into: restored)
        #expect(summary.files == 4)
        let again = try await BundleExport(selection: Self.everything, toolVersion: "t").run(
            archive: restored, to: fixture.path("again.tar.gz"))
        #expect(again.sha256 == whole.sha256)
    }

    @Test func aDamagedStoredFileStopsTheExport() async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        let sha256 = fixture.sha256("uid:u-photo")
        var bytes = fixture.stored["uid:u-photo"]!
        bytes[10] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.archive.fileStore.path(for: sha256)))
        let path = fixture.path("case.tar.gz")
        await #expect(throws: ExportError.self) {
            try await BundleExport(selection: Self.everything, toolVersion: "t").run(archive: fixture.archive, to: path)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        try FileManager.default.removeItem(atPath: fixture.archive.fileStore.path(for: sha256))
        await #expect(
            throws: ExportError.attachmentUnavailable(
                sha256: sha256, reason: "it is not in the file store \(fixture.archive.fileStore.root)")
        ) {
            try await BundleExport(selection: Self.everything, toolVersion: "t").run(archive: fixture.archive, to: path)
        }
        // Without the files, the export still works.
        _ = try await BundleExport(selection: Self.everything, toolVersion: "t", attachments: false).run(
            archive: fixture.archive, to: path)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)
        #expect(left.allSatisfy { !$0.hasPrefix(".") }, "\(left)")
    }

    @Test func jsonLinesAndCSVNameTheFilesTheyDoNotCarry() async throws {
        let fixture = try await F.make()
        defer { fixture.remove() }
        _ = try await MessageExport(selection: Self.everything, format: .jsonl).run(
            archive: fixture.archive, to: fixture.path("all.jsonl"))
        let lines = try ExportReading.lines(
            Array(try Data(contentsOf: URL(fileURLWithPath: fixture.path("all.jsonl")))))
        let photo = try #require(lines.first?["attachment_files"]?.arrayValue?.first)
        #expect(photo["path"] == JSONValue.null && photo["sha256"] == .string(fixture.sha256("uid:u-photo")))
        #expect(photo["note"] == "stored in the archive; only bundles carry files")
        _ = try await MessageExport(selection: Self.everything, format: .csv).run(
            archive: fixture.archive, to: fixture.path("all.csv"))
        let csv = try StrictCSV.parse(try String(contentsOfFile: fixture.path("all.csv"), encoding: .utf8))
        #expect(csv.first == ExportRecord.csvColumns)
        let files = try #require(ExportRecord.csvColumns.firstIndex(of: "attachment_files"))
        #expect(csv[1][files] == "sha256:\(fixture.sha256("uid:u-photo"))")
        #expect(csv[3][files] == "too_large" && csv[4][files] == "listed")
    }
}
