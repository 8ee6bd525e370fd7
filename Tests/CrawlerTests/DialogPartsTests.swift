import ArchiveSQLite
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Synchronization
import Testing

@testable import Crawler

/// A long dialog's walk goes on in parts once the crawl's other dialogs are done (``Crawl/walkRange``): the
/// archive and every dialog's cursor must end exactly as a crawl that walks each dialog in one piece leaves them,
/// whatever the pages and faults, and a run stopped while parts run must lose nothing.
@Suite("A long dialog walked in parts once the others are done")
struct DialogPartsTests {
    /// The `dialog_parts` events of a crawl.
    final class PartsLog: Sendable {
        let entries = Mutex<[(id: String, parts: Int, from: Int)]>([])

        func record(_ event: CrawlEvent) {
            if case .dialogParts(let id, let parts, let from) = event {
                entries.withLock { $0.append((id, parts, from)) }
            }
        }

        var count: Int { entries.withLock { $0.count } }
    }

    /// Ten dialogs, 4,000 messages, six users: enough pages for the last dialogs to go on in parts.
    static func tenDialogs(_ configuration: inout EmulatorConfiguration, seed: UInt64) {
        configuration.seed = seed
        configuration.users = 6
        configuration.dialogs = 10
        configuration.messages = 4000
    }

    /// Every dialog's cursor: its second and the ids known there.
    static func cursors(_ archive: SQLiteArchive) async throws -> [String: CrawlCursor] {
        var cursors: [String: CrawlCursor] = [:]
        for state in try await archive.crawlStates() {
            cursors[state.dialogID] = CrawlCursor(
                dateSent: state.cursor.dateSent, idsAtDateSent: state.cursor.idsAtDateSent)
        }
        return cursors
    }

    /// Crawls the emulator's data twice — in parts (`concurrency` walks) into the setup's archive, and one dialog
    /// at a time (never in parts: no slot is ever free while a dialog waits) into another — and compares both
    /// with the truth and with each other. Returns the crawl in parts' events.
    static func compareWithOnePiece(_ setup: CrawlTests.Setup, pageSize: Int, concurrency: Int) async throws
        -> PartsLog
    {
        let log = PartsLog()
        let summary = try await setup.crawl(
            .app, concurrency: concurrency, configure: { $0.pageSize = pageSize }, events: log.record)
        #expect(summary.status == .complete, "\(summary.failures)")
        let (onePiece, directory) = try PageFaultTests.temporaryArchive()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sequential = CrawlTests.Setup(
            emulator: setup.emulator, hooks: setup.hooks, endpoint: setup.endpoint, archive: onePiece)
        let reference = try await sequential.crawl(.app, concurrency: 1) { $0.pageSize = pageSize }
        #expect(reference.status == .complete)

        let truth = try await setup.truth()
        let archived = try await setup.archived()
        #expect(Set(archived.keys) == Set(truth.messages.keys), "every message, none twice, nothing else")
        for (id, record) in truth.messages {
            #expect(try archived[id].map { try JSONValue(parsing: $0.raw) } == record, "\(id) as the server sent it")
        }
        #expect(summary.messagesNew == truth.messages.count, "each message counted new once")
        #expect(
            try await cursors(setup.archive) == cursors(onePiece), "every cursor where a walk in one piece leaves it")
        return log
    }

    @Test(
        "Walked in parts, the archive and every cursor are those of a crawl in one piece",
        arguments: [(11, 5, 4), (12, 7, 3), (13, 3, 6), (14, 10, 8)])
    func partsEqualOnePiece(seed: UInt64, pageSize: Int, concurrency: Int) async throws {
        try await CrawlTests.run({
            Self.tenDialogs(&$0, seed: seed)
        }) { setup in
            let log = try await Self.compareWithOnePiece(setup, pageSize: pageSize, concurrency: concurrency)
            #expect(log.count > 0, "some dialog went on in parts")
            // Nothing is new the second time: the cursors saved after the parts hold.
            let again = try await setup.crawl(.app, concurrency: concurrency) { $0.pageSize = pageSize }
            #expect(again.messagesNew == 0 && again.messagesEdited == 0)
        }
    }

    @Test(
        "Pages reordered, padded, cut short or overlong, 5xx and dropped connections: the parts still add up",
        arguments: [(21, 5), (22, 8)])
    func partsUnderFaults(seed: UInt64, pageSize: Int) async throws {
        try await CrawlTests.run({
            Self.tenDialogs(&$0, seed: seed)
            $0.pageFaultRate = 0.3
            $0.failRate = 0.05
            $0.resetRate = 0.02
            $0.truncateRate = 0.02
        }) { setup in
            let log = try await Self.compareWithOnePiece(setup, pageSize: pageSize, concurrency: 4)
            #expect(log.count > 0, "some dialog went on in parts")
        }
    }

    /// The parts begin at seconds worked out from the walk's estimate; in generated data few seconds hold a
    /// message, so here one dialog has messages at every second of a range, four a second.
    @Test("Messages at the very seconds the parts begin at are archived, each once", arguments: [(41, 5), (42, 3)])
    func everySecondOnABound(seed: UInt64, pageSize: Int) async throws {
        try await CrawlTests.run({
            $0.seed = seed
            $0.users = 4
            $0.dialogs = 6
            $0.messages = 600
            // The dense dialog is still running when the others are done.
            $0.latencyMilliseconds = 5
        }) { setup in
            var dialog: Dialog?
            for line in await setup.emulator.truthLines() where line.contains("\"kind\":\"dialog\"") {
                let listed = try Dialog(json: try #require(try JSONValue(parsing: line)["record"]))
                if listed.type == .group, listed.occupantIDs.count >= 2 { dialog = listed }
            }
            let dense = try #require(dialog)
            var headers = HTTPFields()
            headers[.authorization] = "ApiKey k"
            headers[HTTPField.Name("On-Behalf-Of")!] = String(dense.occupantIDs[0])
            headers[.contentType] = "application/x-www-form-urlencoded"
            let base = setup.emulator.configuration.epoch - 10_000
            let headersSent = headers
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in stride(from: writer, to: 1_600, by: 8) {
                            let response = try await setup.hooks.execute(
                                uri: "/chat/Message.json", method: .post, headers: headersSent,
                                body: ByteBuffer(
                                    string:
                                        "chat_dialog_id=\(dense.id)&message=dense+\(index)&date_sent=\(base + index / 4)"
                                ))
                            #expect(response.status == .created || response.status == .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let log = try await Self.compareWithOnePiece(setup, pageSize: pageSize, concurrency: 4)
            #expect(log.entries.withLock { $0.contains { $0.id == dense.id } }, "the dense dialog went on in parts")
        }
    }

    /// Whether the dialog's saved cursor claims only messages the archive holds: every message `reference` (a crawl
    /// of the same data) holds before the cursor's second, and those at it whose ids the cursor lists.
    static func cursorClaimsOnlyArchived(_ dialogID: String, _ archive: SQLiteArchive, reference: SQLiteArchive)
        async throws -> Bool
    {
        // The cursor first: it is saved with its page, so the messages read after it include its pages.
        guard let cursor = try await archive.crawlState(dialogID: dialogID)?.cursor, let at = cursor.dateSent else {
            return true
        }
        let archived = Set(try await archive.messages(dialogID: dialogID).map(\.id))
        return try await reference.messages(dialogID: dialogID).allSatisfy { message in
            let claimed = message.dateSent < at || (message.dateSent == at && cursor.idsAtDateSent.contains(message.id))
            return !claimed || archived.contains(message.id)
        }
    }

    @Test(
        "While parts run a dialog's cursor never claims a message not archived; stopped, the next run completes it",
        arguments: [31, 32])
    func stoppedDuringParts(seed: UInt64) async throws {
        try await CrawlTests.run({
            Self.tenDialogs(&$0, seed: seed)
            $0.latencyMilliseconds = 40
        }) { setup in
            let (reference, directory) = try PageFaultTests.temporaryArchive()
            defer { try? FileManager.default.removeItem(at: directory) }
            let referenceSetup = CrawlTests.Setup(
                emulator: setup.emulator, hooks: setup.hooks, endpoint: setup.endpoint, archive: reference)
            #expect(try await referenceSetup.crawl(.app, concurrency: 4).status == .complete)

            let (started, starts) = AsyncStream<(id: String, from: Int)>.makeStream()
            let run = Task {
                defer { starts.finish() }
                return try await setup.crawl(.app, concurrency: 4, configure: { $0.pageSize = 5 }) { event in
                    if case .dialogParts(let id, _, let from) = event { starts.yield((id, from)) }
                }
            }
            var events = started.makeAsyncIterator()
            let first = try #require(await events.next())
            // Watched until the parts have stored pages of their own (the walk's estimate may be far off: at most
            // half of what is there), then stopped.
            let beyond = try await reference.messages(dialogID: first.id).filter { $0.dateSent > first.from }.count
            var checks = 0
            while try await setup.archive.messages(dialogID: first.id).filter({ $0.dateSent > first.from }).count
                < min(60, beyond / 2)
            {
                #expect(try await Self.cursorClaimsOnlyArchived(first.id, setup.archive, reference: reference))
                checks += 1
                try await Task.sleep(for: .milliseconds(2))
            }
            run.cancel()
            let stopped = try await run.value
            #expect(stopped.status == .interrupted)
            #expect(checks > 2)
            for state in try await reference.crawlStates() {
                #expect(try await Self.cursorClaimsOnlyArchived(state.dialogID, setup.archive, reference: reference))
            }

            let resumed = try await setup.crawl(.app, concurrency: 4) { $0.pageSize = 5 }
            #expect(resumed.status == .complete)
            let archived = try await setup.archived()
            let expected = Set(try await reference.messages(dialogID: first.id).map(\.id))
            #expect(expected.isSubset(of: Set(archived.keys)), "nothing lost")
            #expect(Set(archived.keys) == Set(try await setup.truth().messages.keys), "nothing else, nothing twice")
            #expect(try await Self.cursors(setup.archive) == Self.cursors(reference), "every cursor at its end")
        }
    }
}
