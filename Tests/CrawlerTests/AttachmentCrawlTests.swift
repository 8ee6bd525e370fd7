import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@testable import Crawler

@Suite("crawl --attachments files against the emulator's Content API")
struct AttachmentCrawlTests {
    /// A small world (about 30 files of 5 KB–6 MB) so that every byte can be checked quickly.
    static func run(
        _ configure: @Sendable @escaping (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (CrawlTests.Setup) async throws -> Void
    ) async throws {
        try await CrawlTests.run(
            { configuration in
                configuration.dialogs = 8
                configuration.messages = 400
                configuration.largeFileRate = 0
                configure(&configuration)
            }, body)
    }

    /// The emulator's blobs: uid → SHA-256, and uid → whether it is public.
    static func truthBlobs(_ setup: CrawlTests.Setup) async throws -> (sha256: [String: String], size: [String: Int]) {
        var digests: [String: String] = [:]
        var sizes: [String: Int] = [:]
        for line in await setup.emulator.truthLines() where line.contains("\"kind\":\"blob\"") {
            let json = try JSONValue(parsing: line)
            let blob = try Blob(json: try #require(json["record"]))
            digests[blob.uid] = try #require(json["sha256"]?.stringValue)
            sizes[blob.uid] = blob.size
        }
        return (digests, sizes)
    }

    static func files(_ options: AttachmentOptions = AttachmentOptions()) -> (inout CrawlOptions) -> Void {
        { crawl in
            crawl.attachments = options
            crawl.attachments.mode = .files
        }
    }

    /// Every file the archive lists, by key.
    static func listed(_ archive: SQLiteArchive) async throws -> [String: ArchivedFile] {
        var all: [String: ArchivedFile] = [:]
        var after: Int64 = 0
        while true {
            let batch = try await archive.filesToFetch(after: after, limit: 1000)
            for item in batch { all[item.file.key] = item.file }
            guard let last = batch.last else { break }
            after = last.id
        }
        return all
    }

    static func stats(_ setup: CrawlTests.Setup) async throws -> JSONValue {
        let response = try await setup.hooks.execute(uri: "/_emulator/stats", method: .get)
        return try JSONValue(parsing: Array(response.body.readableBytesView))
    }

    @Test("Every seeded file is archived once, under the SHA-256 of the bytes the server holds")
    func everyFileArchived() async throws {
        try await Self.run { setup in
            let summary = try await setup.crawl(.app, configure: Self.files())
            #expect(summary.status == .complete)
            let truth = try await Self.truthBlobs(setup)
            #expect(truth.sha256.count >= 15)
            #expect(summary.files?.downloaded == truth.sha256.count)
            #expect(summary.files?.bytes == truth.size.values.reduce(0, +))
            #expect(try await Self.listed(setup.archive).isEmpty, "nothing left to fetch")
            let store = setup.archive.fileStore
            for (uid, sha256) in truth.sha256 {
                let recorded = try #require(try await setup.archive.files(keys: ["uid:" + uid])["uid:" + uid])
                #expect(recorded.status == .ok)
                #expect(recorded.sha256 == sha256)
                #expect(recorded.size == truth.size[uid])
                #expect(recorded.source == "GET /blobs/\(uid)/download")
                #expect(recorded.contentType != nil)
                #expect(store.verify(sha256) == .ok(size: truth.size[uid] ?? -1))
            }
            let counts = try await setup.archive.fileCounts()
            #expect(counts.byStatus[.ok] == truth.sha256.count)
            #expect(counts.storedBytes == truth.size.values.reduce(0, +))
            #expect(try await setup.archive.verifyFileStore().isIntact)
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: store.root + "/tmp")) ?? []
            #expect(leftovers.isEmpty)
        }
    }

    @Test("A second crawl downloads nothing: stored files are never asked for again")
    func repeatedCrawlDownloadsNothing() async throws {
        try await Self.run { setup in
            _ = try await setup.crawl(.app, configure: Self.files())
            let before = try await Self.stats(setup)["downloads"]
            // What a killed run would have left half-written.
            let leftover = setup.archive.fileStore.root + "/tmp/killed.part"
            try Data("half a file".utf8).write(to: URL(fileURLWithPath: leftover))
            let again = try await setup.crawl(.app, configure: Self.files())
            #expect(again.status == .complete)
            #expect(again.files?.downloaded == 0)
            #expect(again.files?.bytes == 0)
            let after = try await Self.stats(setup)["downloads"]
            #expect(after?["redirects"] == before?["redirects"])
            #expect(after?["downloads"] == before?["downloads"])
            #expect(!FileManager.default.fileExists(atPath: leftover))
        }
    }

    @Test("Bodies cut short or sent under a wrong Content-Length are retried and never stored as complete")
    func truncatedDownloadsRetried() async throws {
        try await Self.run({
            $0.truncateRate = 0.35
            $0.badLengthRate = 0.2
        }) { setup in
            var few = AttachmentOptions()
            few.attempts = 2
            let first = try await setup.crawl(.app, configure: Self.files(few))
            let truth = try await Self.truthBlobs(setup)
            let faults = try await Self.stats(setup)["faults"]
            #expect((faults?["truncate"] ?? 0) != 0)
            // Whatever was stored is exactly right; whatever was not is recorded as failed, for the next run.
            var failed = 0
            for (uid, sha256) in truth.sha256 {
                let recorded = try #require(try await setup.archive.files(keys: ["uid:" + uid])["uid:" + uid])
                switch recorded.status {
                case .ok: #expect(recorded.sha256 == sha256)
                case .failed:
                    failed += 1
                    #expect(recorded.attempts == 2)
                    #expect(recorded.sha256 == nil)
                default: Issue.record("unexpected status \(recorded.status) for \(uid)")
                }
            }
            #expect(first.files?.failed == failed)
            #expect(first.status == (failed > 0 ? .partial : .complete))
            #expect(try await setup.archive.verifyFileStore().isIntact)
            // The next run retries the failed files (with enough attempts to get through the faults).
            var many = AttachmentOptions()
            many.attempts = 40
            let second = try await setup.crawl(.app, configure: Self.files(many))
            #expect(second.status == .complete)
            #expect(second.files?.downloaded == failed)
            #expect(try await Self.listed(setup.archive).isEmpty)
            let stored = try await setup.archive.storedFiles()
            #expect(Set(stored.map(\.sha256)) == Set(truth.sha256.values))
        }
    }

    @Test("Files over --attachment-max-bytes are recorded as too large and not stored")
    func tooLarge() async throws {
        try await Self.run { setup in
            var limited = AttachmentOptions()
            limited.maxBytes = 300_000
            let summary = try await setup.crawl(.app, configure: Self.files(limited))
            let truth = try await Self.truthBlobs(setup)
            let large = truth.size.filter { $0.value > 300_000 }
            #expect(!large.isEmpty)
            #expect(summary.files?.tooLarge == large.count)
            #expect(summary.files?.downloaded == truth.size.count - large.count)
            for uid in large.keys {
                let recorded = try #require(try await setup.archive.files(keys: ["uid:" + uid])["uid:" + uid])
                #expect(recorded.status == .tooLarge)
                #expect(!setup.archive.fileStore.contains(truth.sha256[uid] ?? ""))
            }
        }
    }

    @Test("A url on another host is recorded, not fetched, unless --external-urls allows it")
    func externalURLs() async throws {
        try await Self.run({ $0.publicBlobRate = 1 }) { setup in
            // The emulator answers on 127.0.0.1 too, but for a crawl of `localhost` that is another host.
            let truth = try await Self.truthBlobs(setup)
            let (uid, sha256) = try #require(truth.sha256.min { $0.key < $1.key })
            let port = try #require(setup.hooks.port)
            let external = "http://127.0.0.1:\(port)/blobs/\(uid)"
            let sameHost = "http://localhost:\(port)/blobs/\(uid)?via=message"
            try await Self.post(setup, attachments: [["type": "file", "url": .string(external)]])
            try await Self.post(setup, attachments: [["type": "file", "url": .string(sameHost)]])

            let first = try await setup.crawl(.app, configure: Self.files())
            #expect(first.files?.external == 1)
            let before = try await setup.archive.files(keys: ["url:" + external, "url:" + sameHost])
            #expect(before["url:" + external]?.status == .external)
            #expect(before["url:" + sameHost]?.status == .ok)
            #expect(before["url:" + sameHost]?.source == "http://localhost:\(port)/blobs/\(uid)", "no query kept")

            var allowed = AttachmentOptions()
            allowed.externalURLs = true
            let second = try await setup.crawl(.app, configure: Self.files(allowed))
            #expect(second.files?.downloaded == 1)
            let after = try await setup.archive.files(keys: ["url:" + external])
            #expect(after["url:" + external]?.status == .ok)
            #expect(after["url:" + external]?.sha256 == sha256)
        }
    }

    @Test("--attachments metadata lists files without a request; none skips the index and a later run catches up")
    func metadataAndNone() async throws {
        try await Self.run { setup in
            let none = try await setup.crawl(.app) { $0.attachments.mode = .none }
            #expect(none.files == nil)
            #expect(try await setup.archive.fileCounts().total == 0)
            let metadata = try await setup.crawl(.app) { $0.attachments.mode = .metadata }
            #expect(metadata.files == nil)
            let truth = try await Self.truthBlobs(setup)
            let counts = try await setup.archive.fileCounts()
            #expect(counts.byStatus[.listed] == truth.sha256.count, "caught up with the pages the none run stored")
            let downloads = try await Self.stats(setup)["downloads"]
            #expect(downloads?["redirects"] == 0)
            #expect(downloads?["downloads"] == 0)
        }
    }

    @Test("An attachment naming only a numeric blob id is looked up (GET /blobs/{id}.json) and fetched by uid")
    func blobIDOnly() async throws {
        try await Self.run { setup in
            // Blob ids below 10 000 are free in seeded data: the emulator keeps this one.
            try await Self.post(setup, attachments: [["type": "image", "id": "77"]])
            let record = try #require(
                await setup.emulator.truthLines().lazy.compactMap { line -> JSONValue? in
                    guard line.contains("\"kind\":\"blob\""), let json = try? JSONValue(parsing: line),
                        json["record"]?["id"] == 77
                    else { return nil }
                    return json
                }.first)
            let blob = try Blob(json: try #require(record["record"]))
            let size = try #require(blob.size)

            // The record's size decides before any byte: no download, and the size recorded is the server's.
            var limited = AttachmentOptions()
            limited.maxBytes = size - 1
            _ = try await setup.crawl(.app, configure: Self.files(limited))
            let refused = try #require(try await setup.archive.files(keys: ["id:77"])["id:77"])
            #expect(refused.status == .tooLarge)
            #expect(refused.size == size)

            _ = try await setup.crawl(.app, configure: Self.files())
            let stored = try #require(try await setup.archive.files(keys: ["id:77"])["id:77"])
            #expect(stored.status == .ok)
            #expect(stored.sha256 == record["sha256"]?.stringValue)
            #expect(stored.source == "GET /blobs/\(blob.uid)/download")
        }
    }

    /// Posts a message with these attachments into the first dialog, as its first occupant.
    static func post(_ setup: CrawlTests.Setup, attachments: [JSONValue]) async throws {
        let dialogLine = try #require(await setup.emulator.truthLines().first { $0.contains("\"kind\":\"dialog\"") })
        let dialog = try Dialog(json: try #require(try JSONValue(parsing: dialogLine)["record"]))
        var headers = HTTPFields()
        headers[.authorization] = "ApiKey k"
        headers[HTTPField.Name("On-Behalf-Of")!] = String(try #require(dialog.occupantIDs.first))
        headers[.contentType] = "application/json"
        let body: JSONValue = [
            "chat_dialog_id": .string(dialog.id), "message": "see attached", "attachments": .array(attachments),
        ]
        let response = try await setup.hooks.execute(
            uri: "/chat/Message.json", method: .post, headers: headers, body: ByteBuffer(string: body.jsonString))
        #expect(response.status == .created)
    }
}
