import Archive
import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import Logging
import NIOCore
import QuickBlox
import QuickBloxClient
import QuickBloxEmulator
import Testing

@testable import Crawler

/// Pages that are not what was asked for (issue 19): reordered, padded with an older repeat of their first
/// item (101 items for `limit=100`), cut short, one over the limit. The pager and the reconcile must trust
/// neither order nor size: nothing lost, nothing repeated, nothing live tombstoned.
@Suite("Pages that are not what was asked for")
struct PageFaultTests {
    static let quiet: Logger = {
        var logger = Logger(label: "pf")
        logger.logLevel = .critical
        return logger
    }()

    /// A new SQLite archive in a folder of its own (the caller removes the folder).
    static func temporaryArchive() throws -> (SQLiteArchive, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (try SQLiteArchive.create(at: directory.appendingPathComponent("a.sqlite").path), directory)
    }

    @Test(
        "Every page faulty, bursts larger than a page: each walk yields exactly the truth, once each",
        arguments: [(1.0, 100, 100), (1.0, 10, 100), (0.5, 25, 25), (1.0, 7, 50)])
    func walks(rate: Double, pageSize: Int, serverMaxLimit: Int) async throws {
        try await MessagePagerTests.run({
            $0.pageFaultRate = rate
            $0.maxLimit = serverMaxLimit
            $0.dialogs = 4
            $0.messages = 3000
        }) { emulator, client, hooks in
            let truth = try await MessagePagerTests.truth(emulator)
            let bursty = truth.messages.values.contains { records in
                Dictionary(grouping: records, by: { $0["date_sent"]?.lenientInt ?? 0 }).values.contains {
                    $0.count > min(pageSize, serverMaxLimit)
                }
            }
            #expect(bursty, "the data holds a second with more messages than a page")
            for dialog in truth.dialogs {
                var pager = MessagePager(
                    client: client, dialogID: dialog.id, onBehalfOf: MessagePagerTests.reader(of: dialog))
                pager.pageSize = pageSize
                // Half the walks know the dialog's newest message (as a crawl does), half do not.
                if dialog.id.hasSuffix("0") || dialog.id.hasSuffix("2") || dialog.id.hasSuffix("4") {
                    pager.newest = dialog.lastMessageDateSent.map { .init(dateSent: $0, id: dialog.lastMessageID) }
                }
                let walked = try await MessagePagerTests.walkAll(pager)
                let ids = walked.batches.flatMap(\.messages).map(\.id)
                #expect(Set(ids).count == ids.count, "no message twice in \(dialog.id)")
                let expected = (truth.messages[dialog.id] ?? []).compactMap { $0["_id"]?.stringValue }
                #expect(Set(ids) == Set(expected), "dialog \(dialog.id)")
                // Cursors only move forward and end at the dialog's newest second.
                let cursors = walked.batches.compactMap(\.cursor.dateSent)
                #expect(cursors == cursors.sorted())
                #expect(cursors.last == (truth.messages[dialog.id] ?? []).last?["date_sent"]?.lenientInt)
            }
            let stats = try await hooks.execute(uri: "/_emulator/stats", method: .get)
            let faults = try JSONValue(parsing: Data(stats.body.readableBytesView))["faults"]
            for kind in ["page_padded", "page_short", "page_reordered", "page_overlong"] {
                #expect((faults?[kind]?.lenientInt ?? 0) > 0, "\(kind) injected")
            }
        }
    }

    @Test(
        "Pages cut short a third of the time: walks with and without the newest message still yield exactly the truth",
        arguments: [(7, 1), (10, 2), (3, 3), (25, 4)])
    func shortPages(pageSize: Int, seed: UInt64) async throws {
        try await MessagePagerTests.run({
            $0.seed = seed
            $0.pageFaultRate = 0.3
            $0.pageFaultKinds = [.short]
            $0.dialogs = 5
            $0.messages = 600
        }) { emulator, client, _ in
            let truth = try await MessagePagerTests.truth(emulator)
            for (index, dialog) in truth.dialogs.enumerated() {
                let expected = (truth.messages[dialog.id] ?? []).compactMap { $0["_id"]?.stringValue }
                for knowsNewest in [false, true] {
                    var pager = MessagePager(
                        client: client, dialogID: dialog.id, onBehalfOf: MessagePagerTests.reader(of: dialog))
                    pager.pageSize = pageSize
                    if knowsNewest {
                        pager.newest = dialog.lastMessageDateSent.map { .init(dateSent: $0, id: dialog.lastMessageID) }
                    }
                    // From the start, and from a cursor half-way (an incremental run's starting point).
                    var start = CrawlCursor()
                    if index % 2 == 1, expected.count > 2,
                        let middle = (truth.messages[dialog.id] ?? [])[expected.count / 2]["date_sent"]?.lenientInt
                    {
                        start = CrawlCursor(dateSent: middle, idsAtDateSent: [])
                    }
                    let walked = try await MessagePagerTests.walkAll(pager, from: start)
                    let ids = walked.batches.flatMap(\.messages).map(\.id)
                    let want = (truth.messages[dialog.id] ?? []).filter {
                        start.dateSent == nil || ($0["date_sent"]?.lenientInt ?? 0) >= start.dateSent!
                    }.compactMap { $0["_id"]?.stringValue }
                    #expect(Set(ids).count == ids.count, "no message twice in \(dialog.id)")
                    #expect(Set(ids) == Set(want), "dialog \(dialog.id), newest known: \(knowsNewest)")
                }
            }
        }
    }

    @Test("Every page cut short: the walk says so (PagesCutShort) instead of ending as if complete")
    func alwaysShort() async throws {
        try await MessagePagerTests.run({
            $0.pageFaultRate = 1
            $0.pageFaultKinds = [.short]
            $0.dialogs = 2
            $0.messages = 200
        }) { emulator, client, _ in
            let truth = try await MessagePagerTests.truth(emulator)
            let dialog = try #require(truth.dialogs.first { (truth.messages[$0.id]?.count ?? 0) > 3 })
            for knowsNewest in [false, true] {
                var pager = MessagePager(
                    client: client, dialogID: dialog.id, onBehalfOf: MessagePagerTests.reader(of: dialog))
                pager.pageSize = 10
                if knowsNewest {
                    pager.newest = dialog.lastMessageDateSent.map { .init(dateSent: $0, id: dialog.lastMessageID) }
                }
                var stored = 0
                let error = await #expect(throws: PagesCutShort.self) {
                    try await pager.walk(from: CrawlCursor()) { stored += $0.messages.count }
                }
                #expect(error?.dialogID == dialog.id)
                #expect(error?.errorDescription?.contains("cut short") == true)
                #expect(stored < truth.messages[dialog.id]?.count ?? 0)
            }
        }
    }

    @Test("A crawl whose pages are always cut short ends partial, each failed dialog saying its pages are cut short")
    func crawlOfShortPages() async throws {
        try await MessagePagerTests.run({
            $0.pageFaultRate = 1
            $0.pageFaultKinds = [.short]
            $0.dialogs = 3
            $0.messages = 300
        }) { _, client, _ in
            let (archive, directory) = try Self.temporaryArchive()
            defer { try? FileManager.default.removeItem(at: directory) }
            let logger = Self.quiet
            var options = CrawlOptions()
            options.scope = .app
            options.pageSize = 10
            let summary = try await Crawl(client: client, archive: archive, options: options, logger: logger).run()
            #expect(summary.status == .partial)
            #expect(!summary.failures.isEmpty)
            #expect(summary.failures.values.allSatisfy { $0.contains("cut short") }, "\(summary.failures)")
            // The pages a failed dialog stored before it failed are kept, and the run's totals count them.
            let stored = try await archive.counts().messages
            #expect(stored > 0)
            #expect(summary.messagesNew == stored)
        }
    }

    @Test(
        "Faulty pages between rounds of live changes: crawls then --reconcile lose nothing and tombstone nothing live",
        arguments: [61, 62, 63] as [UInt64])
    func crawlsAndReconcile(seed: UInt64) async throws {
        try await MessagePagerTests.run({
            $0.seed = seed
            $0.pageFaultRate = 0.3
            $0.failRate = 0.05
            $0.dialogs = 10
            $0.messages = 2000
        }) { emulator, _, hooks in
            let (archive, directory) = try Self.temporaryArchive()
            defer { try? FileManager.default.removeItem(at: directory) }
            let logger = Self.quiet
            func crawl(reconcile: Bool) async throws -> CrawlSummary {
                var configuration = ClientConfiguration(
                    endpoint: "http://localhost:\(hooks.port!)", credentials: .apiKey("k"))
                configuration.retry = RetryPolicy(
                    maxAttempts: 20, baseDelay: .milliseconds(5), maxDelay: .milliseconds(40))
                configuration.maxRequestsPerSecond = 0
                var options = CrawlOptions()
                options.scope = .app
                options.reconcile = reconcile
                options.pageSize = 40
                return try await Crawl(
                    client: QuickBloxClient(configuration: configuration, logger: logger), archive: archive,
                    options: options, logger: logger
                ).run()
            }
            #expect(try await crawl(reconcile: false).status == .complete)
            for round in 0..<4 {
                _ = try await hooks.execute(uri: "/_emulator/live?count=80", method: .post)
                let summary = try await crawl(reconcile: round % 2 == 1)
                #expect(summary.status == .complete, "round \(round): \(summary.failures)")
            }
            // The truth's messages some user can still read, and what the archive holds live.
            var visible: Set<String> = []
            var unreadable: Set<String> = []
            var all: [(id: String, dialog: String, visibleTo: [JSONValue]?)] = []
            for line in await emulator.truthLines() {
                let json = try JSONValue(parsing: line)
                if json["kind"] == "dialog", json["visible_to"]?.arrayValue?.isEmpty == true {
                    unreadable.insert(json["record"]?["_id"]?.stringValue ?? "")
                } else if json["kind"] == "message", let record = json["record"] {
                    all.append(
                        (
                            record["_id"]?.stringValue ?? "", record["chat_dialog_id"]?.stringValue ?? "",
                            json["visible_to"]?.arrayValue
                        ))
                }
            }
            for entry in all where entry.visibleTo?.isEmpty != true && !unreadable.contains(entry.dialog) {
                visible.insert(entry.id)
            }
            var live: Set<String> = []
            for summary in try await archive.dialogSummaries(limit: 1000, offset: 0) where summary.deletedAt == nil {
                for message in try await archive.messages(dialogID: summary.id) where message.deletedAt == nil {
                    live.insert(message.id)
                }
            }
            #expect(visible.subtracting(live).isEmpty, "lost \(visible.subtracting(live).count)")
            #expect(live.subtracting(visible).isEmpty, "live but seen by no one: \(live.subtracting(visible).count)")
        }
    }
}
