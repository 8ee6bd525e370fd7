import ArchiveSQLite
import Crawler
import Foundation
import QueryLanguage
import QuickBlox
import QuickBloxClient
import Search
import Testing

/// A fully pushed-down query asks the emulator for the same messages the archive's SQL finds locally.
@Suite("Query pushdown to the QuickBlox REST API")
struct PushdownTests {
    static let queries = [
        "message ctn refund", "sender_id = 100002", "sender_id in (100001, 100003) message ctn the",
        "sender_id != 100004 date >= 2025-06-01", "date_sent in 2025-03", "date < 2025-02-01 sender_id >= 100005",
        "updated_at > 2025-09-01", "attachments.type = image", "recipient_id in (100001, 100002)",
        "message[ctn]=http&sender_id[nin]=100001,100002",
    ]

    @Test func pushedDownQueriesReturnWhatTheArchiveFinds() async throws {
        try await CrawlTests.run { setup in
            #expect(try await setup.crawl(.app).status == .complete)
            let client = QuickBloxClient(
                configuration: ClientConfiguration(endpoint: setup.endpoint, credentials: .apiKey("k")),
                logger: CrawlTests.quiet)
            let dialogs = try await setup.archive.liveDialogIDs() as [String]
            let readers = try await Self.readers(setup.archive, dialogs: dialogs)
            let parser = QueryParser(now: ArchiveTime.now())
            var nonEmpty = 0
            for text in Self.queries {
                let query = try parser.parse(text)
                let pushdown = QueryPushdown(query)
                #expect(pushdown.isComplete, "\(text) left \(pushdown.residual)")
                let local = Set(
                    try await setup.archive.search(query, options: SearchOptions(limit: 100_000)).map(\.message.id))
                var remote: Set<String> = []
                for dialog in pushdown.dialogIDs.isEmpty ? dialogs : pushdown.dialogIDs {
                    var skip = 0
                    while true {
                        let page = try await client.messages(
                            dialogID: dialog,
                            pushdown.filters.map(\.queryItem) + [("limit", "100"), ("skip", String(skip))],
                            onBehalfOf: readers[dialog])
                        remote.formUnion(page.items.map(\.id))
                        if page.items.count < 100 { break }
                        skip += page.items.count
                    }
                }
                #expect(remote == local, "\(text): server \(remote.count), archive \(local.count)")
                if !local.isEmpty { nonEmpty += 1 }
            }
            #expect(nonEmpty >= Self.queries.count - 2)
        }
    }

    @Test func aTargetedCrawlFetchesOnlyMatchesAndLeavesFullRunsWhole() async throws {
        try await CrawlTests.run { setup in
            let text = "sender_id in (100002, 100003) date >= 2025-04-01"
            let pushdown = QueryPushdown(try QueryParser(now: ArchiveTime.now()).parse(text))
            let targeted = try await setup.crawl(.app) { options in
                options.query = text
                options.messageFilters = pushdown.filters.map(\.queryItem)
            }
            #expect(targeted.status == .complete)
            let truth = try await setup.truth().messages.values.compactMap { try? Message(json: $0) }
            let matching = Set(
                truth.filter { [100_002, 100_003].contains($0.senderID ?? 0) && $0.dateSent >= 1_743_465_600 }.map(\.id)
            )
            #expect(!matching.isEmpty)
            #expect(Set(try await setup.archived().keys) == matching)
            // The targeted run is recorded with its query and is not the base of the next incremental run.
            #expect(try await setup.archive.updatedSince(scope: "app") == nil)
            #expect(try await setup.archive.runs(limit: 1).first?.status == .complete)

            // A full run afterwards still fetches everything: no cursor moved.
            #expect(try await setup.crawl(.app).status == .complete)
            #expect(Set(try await setup.archived().keys) == Set(truth.map(\.id)))
        }
    }

    /// An occupant of each dialog, to read it on behalf of (public dialogs: anyone).
    static func readers(_ archive: SQLiteArchive, dialogs: [String]) async throws -> [String: Int] {
        var readers: [String: Int] = [:]
        for dialog in dialogs {
            readers[dialog] = try await archive.membership(dialogID: dialog).first?.userID ?? 100_001
        }
        return readers
    }
}
