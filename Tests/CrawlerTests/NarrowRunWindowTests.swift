import Archive
import ArchiveSQLite
import Foundation
import QuickBlox
import Testing

@testable import Crawler
@testable import QuickBloxEmulator

/// A crawl reads again what changed since the last run that covered all it reads (``RunScope``): a run limited to
/// some dialogs (`--dialog`, even a mistyped one), one with `--where`, or a user-scope run on an app-scope archive
/// read less, and once moved the window of every dialog, so the next full crawl missed edits made before them.
@Suite("A narrower run neither moves the edits' window nor passes for a backup")
struct NarrowRunWindowTests {
    /// A narrower run, recorded as the crawler records it, started later than any edit.
    @Test(arguments: [("app dialogs", nil), ("user", nil), ("user dialogs", nil), ("app", "sender_id = 1")])
    func anEditBeforeANarrowerRunIsArchivedByTheNextFullCrawl(scope: String, query: String?) async throws {
        try await CrawlTests.run({ ReaderChangeTests.smallApp(&$0) }) { setup in
            let first = try await setup.crawl(.app)
            #expect(first.status == .complete)
            let started = try #require(try await setup.archive.runs(limit: 1).first?.startedAt)

            // Edited a little after the full run started; the narrower run begins an hour later.
            let dialog = try #require(try await setup.archive.liveDialogIDs().first)
            let message = try #require(try await setup.archive.messages(dialogID: dialog).last { $0.senderID != nil })
            let text = "edited before a narrower run"
            let edit = RequestParameters(pairs: [("message", text)], object: ["message": .string(text)], queryPairs: [])
            try await setup.emulator.store.updateMessage(
                id: message.id, edit, by: try #require(message.senderID), now: started + 5)
            let narrow = try await setup.archive.beginRun(scope: scope, query: query, at: started + 3_600)
            try await setup.archive.finishRun(
                narrow, status: .complete, counts: RunCounts(), error: nil, at: started + 3_601)
            #expect(try await setup.archive.updatedSince(scope: "app") == started)

            let next = try await setup.crawl(.app)
            #expect(next.status == .complete, "\(next.failures)")
            let archived = try await setup.archive.messages(dialogID: dialog).first { $0.id == message.id }
            #expect(archived?.text == text)
            #expect(archived?.edited == 1)
        }
    }

    /// The crawler records a `--dialog` run as such, and an app-scope run counts for a user-scope crawl.
    @Test func runsAreRecordedWithWhatTheyCovered() async throws {
        try await CrawlTests.run({ ReaderChangeTests.smallApp(&$0) }) { setup in
            let typo = try await setup.crawl(.app, configure: { $0.dialogIDs = ["no-such-dialog"] })
            // A dialog no list shows is a failure of the run, not a quiet "0 dialogs".
            #expect(typo.status == .partial)
            #expect(typo.failures["no-such-dialog"]?.contains("no dialog list this run read shows it") == true)
            let dialogRun = try #require(try await setup.archive.runs(limit: 1).first)
            #expect(dialogRun.scope == "app dialogs")
            #expect(!dialogRun.isWhole)
            #expect(try await setup.archive.updatedSince(scope: "app") == nil)
            #expect(try await setup.archive.updatedSince(scope: "app dialogs") == nil)

            _ = try await setup.crawl(.app)
            let full = try #require(try await setup.archive.runs(limit: 1).first)
            #expect(full.scope == "app" && full.isWhole)
            #expect(try await setup.archive.updatedSince(scope: "app") == full.startedAt)
            #expect(try await setup.archive.updatedSince(scope: "user") == full.startedAt)
            #expect(try await setup.archive.updatedSince(scope: "app dialogs") == full.startedAt)
        }
    }

    /// `status --check`: a targeted run after a failed one, or alone, is no successful backup.
    @Test(arguments: [("app dialogs", nil), ("app", "from:alice")])
    func aTargetedRunIsNoBackup(scope: String, query: String?) async throws {
        try await CrawlTests.run({ ReaderChangeTests.smallApp(&$0) }) { setup in
            let archive = setup.archive
            let targeted = try await archive.beginRun(scope: scope, query: query, at: 1_000)
            try await archive.finishRun(targeted, status: .complete, counts: RunCounts(), error: nil, at: 1_010)
            var health = try await StatusReport.read(archive, now: 1_100).health(maxAge: nil)
            #expect(health.verdict == .neverSucceeded)
            #expect(health.reason.contains("no full crawl"))

            let failed = try await archive.beginRun(scope: "app", query: nil, at: 2_000)
            try await archive.finishRun(failed, status: .failed, counts: RunCounts(), error: "HTTP 401", at: 2_010)
            let again = try await archive.beginRun(scope: scope, query: query, at: 3_000)
            try await archive.finishRun(again, status: .complete, counts: RunCounts(), error: nil, at: 3_010)
            health = try await StatusReport.read(archive, now: 3_100).health(maxAge: nil)
            #expect(health.verdict == .lastRunFailed)

            let full = try await archive.beginRun(scope: "app", query: nil, at: 4_000)
            try await archive.finishRun(full, status: .complete, counts: RunCounts(), error: nil, at: 4_010)
            health = try await StatusReport.read(archive, now: 4_100).health(maxAge: nil)
            #expect(health.verdict == .ok)
        }
    }
}
