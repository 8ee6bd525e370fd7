import ArchiveTestSupport
import Crypto
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

@Suite("The attachment file store and the attachment_files index")
struct FileStoreTests {
    static func hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    static func store(_ bytes: [UInt8], in store: FileStore) throws -> (sha256: String, size: Int) {
        let writer = try store.makeWriter()
        #expect(bytes.withUnsafeBytes { writer.write($0) })
        return try writer.commit()
    }

    @Test("A file lands under its SHA-256, split after two digits; the same bytes are stored once")
    func contentAddressed() async throws {
        let fixture = try await ArchiveFixture()
        let store = fixture.archive.fileStore
        #expect(store.root == fixture.sqlite.path + ".files")
        let bytes = Array("a photo, say".utf8)
        let digest = Self.hex(bytes)
        let first = try Self.store(bytes, in: store)
        #expect(first.sha256 == digest)
        #expect(first.size == bytes.count)
        #expect(store.path(for: digest) == "\(store.root)/sha256/\(digest.prefix(2))/\(digest.dropFirst(2))")
        #expect(FileManager.default.contents(atPath: store.path(for: digest)) == Data(bytes))
        #expect(try Self.store(bytes, in: store).sha256 == digest)
        #expect(store.allDigests() == [digest])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.root + "/tmp").isEmpty)
        #expect(store.verify(digest) == .ok(size: bytes.count))
    }

    @Test("reset starts over, discard leaves nothing, and a corrupt or missing file is reported")
    func resetDiscardVerify() async throws {
        let fixture = try await ArchiveFixture()
        let store = fixture.archive.fileStore
        let writer = try store.makeWriter()
        #expect(Array("half of a fi".utf8).withUnsafeBytes { writer.write($0) })
        try writer.reset()
        let whole = Array("the whole file".utf8)
        #expect(whole.withUnsafeBytes { writer.write($0) })
        #expect(try writer.commit().sha256 == Self.hex(whole), "nothing of the first attempt survives")

        let dropped = try store.makeWriter()
        #expect(Array("never".utf8).withUnsafeBytes { dropped.write($0) })
        dropped.discard()
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.root + "/tmp").isEmpty)
        #expect(!store.contains(Self.hex(Array("never".utf8))))

        let digest = Self.hex(whole)
        try Data("tampered file".utf8).write(to: URL(fileURLWithPath: store.path(for: digest)))
        guard case .corrupt = store.verify(digest) else {
            Issue.record("a changed file must not verify")
            return
        }
        #expect(store.verify(String(repeating: "0", count: 64)) == .missing)
        #expect(store.verify("../../etc/passwd") == .missing, "only digests become paths")
    }

    @Test("Pages index the files their attachments name, once per key; edits add the new ones")
    func pagesIndexFiles() async throws {
        let fixture = try await ArchiveFixture()
        let photo = Attachment(type: "image", id: "77", uid: "u-photo", name: "p.jpg", size: 10)
        let link = Attachment(type: "file", url: "https://cdn.example.com/f.pdf")
        let location = Attachment(type: "location", extra: ["data": "{}"])
        try await fixture.write([
            ArchiveFixture.message(1, text: "one", attachments: [photo, location]),
            ArchiveFixture.message(2, text: "two", offset: 1, attachments: [photo, link]),
        ])
        var files = try await fixture.archive.files(keys: ["uid:u-photo", "url:https://cdn.example.com/f.pdf"])
        #expect(files.count == 2)
        #expect(files["uid:u-photo"]?.blobID == "77")
        #expect(files["uid:u-photo"]?.declaredSize == 10)
        #expect(files["uid:u-photo"]?.status == .listed)
        #expect(try await fixture.archive.fileCounts().total == 2, "the location names no file")

        let other = Attachment(type: "audio", uid: "u-voice")
        try await fixture.write([
            ArchiveFixture.message(
                1, text: "one, now with a voice note", updatedAt: ArchiveFixture.baseTime + 5, attachments: [other])
        ])
        files = try await fixture.archive.files(keys: ["uid:u-photo", "uid:u-voice"])
        #expect(files.count == 2, "the earlier file stays listed: an archive never forgets")
    }

    @Test("Fetch outcomes: stored, failed attempts add up, requeue; counts by status and distinct bytes")
    func outcomes() async throws {
        let fixture = try await ArchiveFixture()
        let a = Attachment(type: "image", uid: "a")
        let b = Attachment(type: "image", uid: "b")
        let c = Attachment(type: "file", url: "https://elsewhere.example/c")
        try await fixture.write([ArchiveFixture.message(1, text: "x", attachments: [a, b, c])])
        let archive = fixture.archive
        let bytes = Array("same bytes".utf8)
        let stored = try Self.store(bytes, in: archive.fileStore)
        let outcome = FetchOutcome.stored(
            sha256: stored.sha256, size: stored.size, contentType: "image/png", source: "s")
        try await archive.recordFetch(key: "uid:a", outcome: outcome)
        try await archive.recordFetch(key: "uid:b", outcome: outcome)
        try await archive.recordFetch(
            key: "url:https://elsewhere.example/c", outcome: .failed(reason: "x", attempts: 2))
        try await archive.recordFetch(
            key: "url:https://elsewhere.example/c", outcome: .failed(reason: "y", attempts: 3))
        let failed = try #require(try await archive.files(keys: ["url:https://elsewhere.example/c"]).values.first)
        #expect(failed.attempts == 5)
        #expect(failed.lastError == "y")
        let counts = try await archive.fileCounts()
        #expect(counts.byStatus == [.ok: 2, .failed: 1])
        #expect(counts.storedFiles == 1, "two keys, one file")
        #expect(counts.storedBytes == bytes.count)
        #expect(
            try await archive.filesToFetch(after: 0, limit: 10).map(\.file.key) == ["url:https://elsewhere.example/c"])
        #expect(try await archive.storedFile(sha256: stored.sha256)?.contentType == "image/png")

        #expect(try await archive.requeueFiles(sha256: [stored.sha256]) == 2)
        #expect(try await archive.filesToFetch(after: 0, limit: 10).count == 3)
    }

    @Test("Upgrading an archive from before v5 lists the files of its messages and revisions")
    func migrationBackfills() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([
            ArchiveFixture.message(1, text: "x", attachments: [Attachment(type: "image", uid: "old")])
        ])
        try await fixture.write([
            ArchiveFixture.message(
                1, text: "x", updatedAt: ArchiveFixture.baseTime + 9,
                attachments: [Attachment(type: "image", uid: "new")])
        ])
        try await fixture.sqlite.pool.write { db in
            try db.execute(sql: "DROP TABLE attachment_files")
            try db.execute(sql: "ALTER TABLE archive_meta DROP COLUMN files_unindexed")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v5-attachment-files'")
        }
        let reopened = try SQLiteArchive.open(at: fixture.sqlite.path)
        let files = try await reopened.files(keys: ["uid:old", "uid:new"])
        #expect(Set(files.keys) == ["uid:old", "uid:new"])
    }

    @Test("Pages written without the index are caught up by the next run that keeps it")
    func unindexedCatchUp() async throws {
        let fixture = try await ArchiveFixture()
        let archive = fixture.archive
        try await archive.markFilesUnindexed()
        let message = ArchiveFixture.message(1, text: "x", attachments: [Attachment(type: "image", uid: "late")])
        try await archive.storeMessages(
            [(message, message.json)], dialogID: ArchiveFixture.dialogID, cursor: nil, observedAt: ArchiveTime.now(),
            indexFiles: false)
        #expect(try await archive.fileCounts().total == 0)
        #expect(try await archive.indexFilesIfNeeded() == 1)
        #expect(try await archive.fileCounts().total == 1)
        #expect(try await archive.indexFilesIfNeeded() == nil, "done once")
    }
}
