import ArchiveSQLite
import Foundation
import QuickBlox
import Synchronization
import Testing

@testable import Crawler
@testable import QuickBloxEmulator

/// A run reads each dialog's edits since the last complete run (`updated_at`). Before any run has completed, a
/// dialog that an earlier, unfinished run read whole has no new message to page, and an edit made after that run
/// was read by nothing: it must be read from the first run's start (``ArchiveReader/updatedSince()``).
@Suite("An edit made after a run that did not complete is archived by the next")
struct EditsAfterUnfinishedRunTests {
    @Test func anEditAfterAStoppedFirstRunIsArchived() async throws {
        try await CrawlTests.run({ configuration in
            ReaderChangeTests.smallApp(&configuration)
            configuration.latencyMilliseconds = 20
        }) { setup in
            // The first run is stopped once its first dialog is done: that dialog is archived to its newest message.
            let finished = Mutex<String?>(nil)
            let first = Task {
                try await setup.crawl(
                    .app, concurrency: 1,
                    events: { event in
                        if case .dialogFinished(let id, _, _, _, _) = event { finished.withLock { $0 = $0 ?? id } }
                    })
            }
            while finished.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(5)) }
            first.cancel()
            #expect(try await first.value.status == .interrupted)
            #expect(try await setup.archive.runs(limit: 10).allSatisfy { $0.status != .complete })
            let dialog = try #require(finished.withLock { $0 })

            // One of its messages is edited by its sender afterwards, a second later (its `updated_at` after the
            // first run's start).
            try await Task.sleep(for: .milliseconds(1100))
            let message = try #require(try await setup.archive.messages(dialogID: dialog).last { $0.senderID != nil })
            let text = "edited after a run that did not complete"
            let edit = RequestParameters(pairs: [("message", text)], object: ["message": .string(text)], queryPairs: [])
            try await setup.emulator.store.updateMessage(
                id: message.id, edit, by: try #require(message.senderID), now: Int(Date().timeIntervalSince1970))

            let second = try await setup.crawl(.app)
            #expect(second.status == .complete, "\(second.failures)")
            let archived = try await setup.archive.messages(dialogID: dialog).first { $0.id == message.id }
            #expect(archived?.text == text)
            #expect(archived?.edited == 1)
        }
    }
}
