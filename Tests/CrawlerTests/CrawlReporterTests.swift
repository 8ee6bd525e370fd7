import Archive
import Foundation
import QuickBlox
import Synchronization
import Testing

@testable import Crawler

@Suite("Crawl progress and summaries")
struct CrawlReporterTests {
    final class Sink: Sendable {
        let out = Mutex("")
        let err = Mutex("")
        func reporter(_ mode: CrawlReporter.Mode) -> CrawlReporter {
            CrawlReporter(
                mode: mode, write: { text in self.out.withLock { $0 += text } },
                writeError: { text in self.err.withLock { $0 += text } })
        }
    }

    static let events: [CrawlEvent] = [
        .listed(users: 3, dialogs: 2),
        .dialogFinished(id: "a", new: 10, edited: 1, done: 1, total: 2),
        .dialogFailed(id: "b", reason: "GET /chat/Message.json failed 6 times; last: HTTP 503"),
        .listingFailed(user: 100_004, reason: "GET /chat/Dialog.json failed 6 times; last: HTTP 502"),
    ]

    @Test("--json: one parseable object per event, then the summary")
    func json() throws {
        let sink = Sink()
        let reporter = sink.reporter(.json)
        Self.events.forEach(reporter.handle)
        var summary = CrawlSummary(startedAt: 100)
        summary.status = .partial
        summary.dialogs = 2
        summary.dialogsFailed = 1
        summary.messagesNew = 10
        summary.finishedAt = 104
        reporter.finish(summary)
        let lines = sink.out.withLock { $0 }.split(separator: "\n").map { try? JSONValue(parsing: String($0)) }
        #expect(lines.count == 5)
        #expect(
            lines.map { $0?["event"]?.stringValue } == [
                "listed", "dialog", "dialog_failed", "dialog_list_failed", "summary",
            ])
        #expect(lines[3]?["user"] == 100_004)
        #expect(lines[4]?["status"] == "partial")
        #expect(lines[4]?["messagesNew"] == 10)
        #expect(sink.err.withLock { $0 }.isEmpty)
    }

    @Test("--quiet: nothing at all on success; failures and a failed run's summary on standard error")
    func silent() {
        let sink = Sink()
        let reporter = sink.reporter(.silent)
        var summary = CrawlSummary(startedAt: 100)
        summary.finishedAt = 104
        reporter.finish(summary)
        #expect(sink.out.withLock { $0 }.isEmpty && sink.err.withLock { $0 }.isEmpty)
        Self.events.forEach(reporter.handle)
        summary.status = .partial
        reporter.finish(summary)
        #expect(sink.out.withLock { $0 }.isEmpty)
        let errors = sink.err.withLock { $0 }
        #expect(errors.hasPrefix("dialog b failed: GET /chat/Message.json"))
        #expect(errors.hasSuffix("\n") && errors.contains("crawl partial"), "\(errors)")
    }

    @Test("Output that is not a terminal: failures on standard error, the summary line on standard output")
    func quiet() {
        let sink = Sink()
        let reporter = sink.reporter(.quiet)
        Self.events.forEach(reporter.handle)
        var summary = CrawlSummary(startedAt: 100)
        summary.dialogs = 2
        summary.messagesNew = 10
        summary.requests = 9
        summary.retries = 2
        summary.bytes = 1_500_000
        summary.finishedAt = 104
        reporter.finish(summary)
        #expect(
            sink.out.withLock { $0 }
                == "crawl complete: 2 dialogs, 10 new, 0 edited, 0 deleted; 9 requests (2 retries), 1.5 MB in 4 s\n")
        #expect(sink.err.withLock { $0 }.hasPrefix("dialog b failed: GET /chat/Message.json"))
        #expect(sink.err.withLock { $0 }.contains("dialog list of user 100004 failed: GET /chat/Dialog.json"))
    }

    @Test("On a terminal: a progress line with counts and an ETA")
    func terminal() {
        let sink = Sink()
        let reporter = sink.reporter(.terminal)
        Self.events.prefix(2).forEach(reporter.handle)
        let text = sink.out.withLock { $0 }
        #expect(text.contains("dialogs 1/2 · 10 new, 1 edited"))
        #expect(text.contains("ETA"))
    }
}
