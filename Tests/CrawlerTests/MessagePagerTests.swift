import ArchiveSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Testing

@testable import Crawler

@Suite("Message paging that cannot lose or duplicate")
struct MessagePagerTests {
    /// Runs an emulator and hands over an API-key client with fast retries.
    static func run(
        _ configure: @Sendable (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (Emulator, QuickBloxClient, any TestClientProtocol) async throws -> Void
    ) async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 5
        configuration.users = 6
        configuration.dialogs = 6
        configuration.messages = 2500
        configuration.apiKey = "k"
        configure(&configuration)
        let emulator = try Emulator(configuration: configuration)
        var quiet = Logger(label: "pager-test")
        quiet.logLevel = .critical
        let logger = quiet
        try await emulator.buildApplication(logger: logger).test(.live) { hooks in
            var client = ClientConfiguration(endpoint: "http://localhost:\(hooks.port!)", credentials: .apiKey("k"))
            client.retry = RetryPolicy(maxAttempts: 20, baseDelay: .milliseconds(5), maxDelay: .milliseconds(50))
            client.maxRequestsPerSecond = 0
            try await body(emulator, QuickBloxClient(configuration: client, logger: logger), hooks)
        }
    }

    /// The truth's messages per dialog, in `(date_sent, _id)` order, with their dialogs' occupants.
    static func truth(_ emulator: Emulator) async throws -> (messages: [String: [JSONValue]], dialogs: [Dialog]) {
        var messages: [String: [JSONValue]] = [:]
        var dialogs: [Dialog] = []
        for line in await emulator.truthLines() {
            let json = try JSONValue(parsing: line)
            if json["kind"] == "message", let record = json["record"] {
                messages[record["chat_dialog_id"]?.stringValue ?? "", default: []].append(record)
            } else if json["kind"] == "dialog", let record = json["record"] {
                dialogs.append(try Dialog(json: record))
            }
        }
        return (messages, dialogs)
    }

    static func reader(of dialog: Dialog) -> Int { dialog.occupantIDs.first ?? 100_001 }

    static func walkAll(_ pager: MessagePager, from start: CrawlCursor = CrawlCursor()) async throws
        -> (raw: [JSONValue], batches: [MessagePager.Batch])
    {
        var raw: [JSONValue] = []
        var batches: [MessagePager.Batch] = []
        try await pager.walk(from: start) { batch in
            raw += batch.rawMessages
            batches.append(batch)
        }
        return (raw, batches)
    }

    @Test("Every dialog walked from the start equals the truth, record for record, in order")
    func completeWalk() async throws {
        try await Self.run { emulator, client, _ in
            let truth = try await Self.truth(emulator)
            for dialog in truth.dialogs {
                let pager = MessagePager(client: client, dialogID: dialog.id, onBehalfOf: Self.reader(of: dialog))
                let walked = try await Self.walkAll(pager)
                #expect(walked.raw == (truth.messages[dialog.id] ?? []), "dialog \(dialog.id)")
            }
        }
    }

    @Test(
        "A burst of more than a page in one second is paged with skip, whatever page size the server allows",
        arguments: [(100, 100), (100, 25), (10, 100)])
    func burst(pageSize: Int, serverMaxLimit: Int) async throws {
        try await Self.run({
            $0.maxLimit = serverMaxLimit
            $0.dialogs = 3
            $0.messages = 3000
        }) { emulator, client, _ in
            let truth = try await Self.truth(emulator)
            let biggest = try #require(
                truth.dialogs.max { (truth.messages[$0.id]?.count ?? 0) < (truth.messages[$1.id]?.count ?? 0) })
            let records = truth.messages[biggest.id] ?? []
            let perSecond = Dictionary(grouping: records, by: { $0["date_sent"]?.lenientInt ?? 0 }).values.map(\.count)
            #expect((perSecond.max() ?? 0) > serverMaxLimit, "the data holds a burst larger than a page")
            var pager = MessagePager(client: client, dialogID: biggest.id, onBehalfOf: Self.reader(of: biggest))
            pager.pageSize = pageSize
            let walked = try await Self.walkAll(pager)
            #expect(walked.raw.count == records.count)
            #expect(walked.raw == records)
        }
    }

    @Test("Stopping after any page and resuming from its saved cursor gives each message exactly once")
    func resume() async throws {
        try await Self.run { emulator, client, _ in
            let truth = try await Self.truth(emulator)
            let biggest = try #require(
                truth.dialogs.max { (truth.messages[$0.id]?.count ?? 0) < (truth.messages[$1.id]?.count ?? 0) })
            var pager = MessagePager(client: client, dialogID: biggest.id, onBehalfOf: Self.reader(of: biggest))
            pager.pageSize = 37
            struct Stop: Error {}
            for stopAfter in [1, 3, 7] {
                var first: [JSONValue] = []
                var saved = CrawlCursor()
                var pages = 0
                do {
                    try await pager.walk(from: CrawlCursor()) { batch in
                        first += batch.rawMessages
                        saved = batch.cursor
                        pages += 1
                        if pages == stopAfter { throw Stop() }
                    }
                } catch is Stop {}
                let rest = try await Self.walkAll(pager, from: saved)
                #expect(first + rest.raw == (truth.messages[biggest.id] ?? []), "stopped after \(stopAfter)")
            }
        }
    }

    @Test("A second walk from the final cursor finds only what arrived since")
    func incremental() async throws {
        try await Self.run { emulator, client, hooks in
            let truth = try await Self.truth(emulator)
            let dialog = try #require(
                truth.dialogs.first { $0.type == .group && (truth.messages[$0.id]?.count ?? 0) > 0 })
            let user = Self.reader(of: dialog)
            let pager = MessagePager(client: client, dialogID: dialog.id, onBehalfOf: user)
            let first = try await Self.walkAll(pager)
            let cursor = try #require(first.batches.last?.cursor)
            var headers = HTTPFields()
            headers[.authorization] = "ApiKey k"
            headers[HTTPField.Name("On-Behalf-Of")!] = String(user)
            headers[.contentType] = "application/x-www-form-urlencoded"
            for text in ["new one", "new two"] {
                let response = try await hooks.execute(
                    uri: "/chat/Message.json", method: .post, headers: headers,
                    body: ByteBuffer(
                        string: "chat_dialog_id=\(dialog.id)&message=\(text.replacingOccurrences(of: " ", with: "+"))"))
                #expect(response.status == .created)
            }
            let second = try await Self.walkAll(pager, from: cursor)
            // Both may share one second, where `_id` orders them.
            #expect(Set(second.batches.flatMap(\.messages).compactMap(\.text)) == ["new one", "new two"])
            #expect(second.batches.flatMap(\.messages).count == 2)
            let again = try await Self.walkAll(pager, from: try #require(second.batches.last?.cursor))
            #expect(again.raw.isEmpty)
            #expect(again.batches.count == 1)
        }
    }

    @Test("Under 5xx, resets, truncation and live changes: nothing that stayed is missed, nothing repeats")
    func faultsAndLiveChanges() async throws {
        try await Self.run({
            $0.failRate = 0.15
            $0.resetRate = 0.05
            $0.truncateRate = 0.05
            $0.messages = 4000
        }) { emulator, client, hooks in
            let before = try await Self.truth(emulator)
            var walkedIDs: [String] = []
            for dialog in before.dialogs {
                var pager = MessagePager(client: client, dialogID: dialog.id, onBehalfOf: Self.reader(of: dialog))
                pager.pageSize = 50
                do {
                    try await pager.walk(from: CrawlCursor()) { batch in
                        walkedIDs += batch.messages.map(\.id)
                        // The world moves on between pages.
                        _ = try await hooks.execute(uri: "/_emulator/live?count=3", method: .post)
                    }
                } catch QuickBloxClientError.http(_, let status, _) where status == 404 {
                    continue  // deleted for everyone, or removed from the reader's list, while walking
                }
            }
            #expect(Set(walkedIDs).count == walkedIDs.count, "no message twice")
            let after = try await Self.truth(emulator)
            // Live changes also remove messages and dialogs for one user (QuickBlox's "delete for me"): what
            // the reader no longer sees at the end may rightly be missing from its walk.
            var hiddenForReader: Set<String> = []
            let readers = Dictionary(uniqueKeysWithValues: before.dialogs.map { ($0.id, Self.reader(of: $0)) })
            for line in await emulator.truthLines() {
                let json = try JSONValue(parsing: line)
                guard let hidden = json["hidden_for"]?.objectValue, let record = json["record"] else { continue }
                let dialogID = (json["kind"] == "dialog" ? record["_id"] : record["chat_dialog_id"])?.stringValue ?? ""
                guard let reader = readers[dialogID], hidden[String(reader)] != nil else { continue }
                if json["kind"] == "dialog" {
                    hiddenForReader.formUnion((after.messages[dialogID] ?? []).compactMap { $0["_id"]?.stringValue })
                } else if let id = record["_id"]?.stringValue {
                    hiddenForReader.insert(id)
                }
            }
            let survivors = Set(before.messages.values.joined().compactMap { $0["_id"]?.stringValue })
                .intersection(after.messages.values.joined().compactMap { $0["_id"]?.stringValue })
                .subtracting(hiddenForReader)
            #expect(survivors.isSubset(of: Set(walkedIDs)), "every message present before and after was walked")
            #expect(await client.currentStatistics().retries > 0)
        }
    }
}
