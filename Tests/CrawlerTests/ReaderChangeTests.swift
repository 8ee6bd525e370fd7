import ArchiveSQLite
import Foundation
import QuickBlox
import Synchronization
import Testing

@testable import Crawler
@testable import QuickBloxEmulator

/// In app scope a dialog is read as the first user whose list showed it; when that user loses it between the
/// listing and the reading (QuickBlox answers 403 once they left the group, 404 once they removed the dialog from
/// their own list), the crawl reads it as the next user who listed it (``Crawl/outcome(of:since:runStart:slots:)``)
/// instead of failing the dialog and the run. Only a dialog every lister lost fails.
@Suite("A dialog whose reader loses it during the run is read as another occupant")
struct ReaderChangeTests {
    /// How the reader loses the dialog after the listing.
    enum Loss: String, CaseIterable, Sendable {
        /// They remove the dialog from their own list (`DELETE` without `force`): 404 for them.
        case removedForThemselves
        /// They leave the group (`pull_all[occupants_ids]`): 403 for them.
        case leftTheGroup
        /// Its owner deletes it for everyone (`force=1`): 404 for every lister.
        case deletedForEveryone
    }

    /// The events of a crawl that say the reader changed.
    final class ReaderLog: Sendable {
        let changes = Mutex<[(id: String, from: Int?, to: Int)]>([])

        func record(_ event: CrawlEvent) {
            if case .readerChanged(let id, let from, let to, _) = event {
                changes.withLock { $0.append((id, from, to)) }
            }
        }

        var all: [(id: String, from: Int?, to: Int)] { changes.withLock { $0 } }
    }

    /// A dialog of `type` that nobody hid, with its occupants in id order (the first is its reader: users'
    /// lists are merged in id order) and the ids of its messages each occupant sees.
    static func pick(_ setup: CrawlTests.Setup, type: Int, occupants: Int) async throws -> (
        id: String, owner: Int, occupants: [Int], visible: [Int: Set<String>]
    )? {
        var candidates: [(id: String, owner: Int, occupants: [Int])] = []
        var visible: [String: [Int: Set<String>]] = [:]
        for line in await setup.emulator.truthLines() {
            let json = try JSONValue(parsing: line)
            let record = json["record"]
            switch json["kind"]?.stringValue {
            case "dialog" where json["hidden_for"] == nil && record?["type"]?.lenientInt == type:
                let ids = (record?["occupants_ids"]?.lenientIntArray ?? []).sorted()
                guard ids.count >= occupants, let id = record?["_id"]?.stringValue,
                    let owner = record?["user_id"]?.lenientInt
                else { continue }
                candidates.append((id, owner, ids))
            case "message":
                let dialog = record?["chat_dialog_id"]?.stringValue ?? ""
                let hidden = Set((json["hidden_for"]?.objectValue ?? [:]).keys.compactMap { Int($0) })
                for candidate in candidates where candidate.id == dialog {
                    for user in candidate.occupants where !hidden.contains(user) {
                        visible[dialog, default: [:]][user, default: []].insert(record?["_id"]?.stringValue ?? "")
                    }
                }
            default: break
            }
        }
        // The dialog with the most messages: several pages.
        guard
            let chosen = candidates.max(by: {
                (visible[$0.id]?.values.map(\.count).max() ?? 0) < (visible[$1.id]?.values.map(\.count).max() ?? 0)
            })
        else { return nil }
        return (chosen.id, chosen.owner, chosen.occupants, visible[chosen.id] ?? [:])
    }

    /// A small app with groups of every size the tests need: 8 users, 10 dialogs, 600 messages.
    static func smallApp(_ configuration: inout EmulatorConfiguration) {
        configuration.seed = 23
        configuration.users = 8
        configuration.dialogs = 10
        configuration.messages = 600
    }

    /// Makes `reader` lose `dialog` in the emulator, the way `loss` says.
    static func lose(
        _ loss: Loss, dialog: String, reader: Int, owner: Int, emulator: Emulator
    ) async throws {
        let now = Int(Date().timeIntervalSince1970)
        switch loss {
        case .removedForThemselves:
            _ = try await emulator.store.deleteDialogs(ids: [dialog], by: reader, force: false, now: now)
        case .leftTheGroup:
            let leave = RequestParameters(
                pairs: [], object: ["pull_all": ["occupants_ids": [.int(reader)]]], queryPairs: [])
            _ = try await emulator.store.updateDialog(id: dialog, leave, by: reader, now: now)
        case .deletedForEveryone:
            _ = try await emulator.store.deleteDialogs(ids: [dialog], by: owner, force: true, now: now)
        }
    }

    @Test(arguments: Loss.allCases)
    func theDialogIsReadAsTheNextLister(_ loss: Loss) async throws {
        try await CrawlTests.run({ configuration in
            Self.smallApp(&configuration)
            // Every request waits this long before it is answered: the loss, made when the listing ends, is in
            // place before the first page of any dialog is read.
            configuration.latencyMilliseconds = 300
        }) { setup in
            // A private dialog for a removal (any occupant may remove it for themselves), a group of three or more
            // for leaving (the others stay), a group of more than ``Crawl/readersTried`` for a deletion: each
            // lister answers 404, and the crawl stops asking after that many.
            let (type, occupants) =
                switch loss {
                case .removedForThemselves: (3, 2)
                case .leftTheGroup: (2, 3)
                case .deletedForEveryone: (2, Crawl.readersTried + 1)
                }
            let picked = try #require(try await Self.pick(setup, type: type, occupants: occupants))
            let reader = picked.occupants[0]
            let next = picked.occupants[1]
            let log = ReaderLog()
            let made = Mutex(false)
            let emulator = setup.emulator
            let lost = AsyncStream<Void>.makeStream()
            let summary = try await setup.crawl(
                .app, concurrency: 3, configure: { $0.pageSize = 25 },
                events: { event in
                    log.record(event)
                    guard case .listed = event, !made.withLock({ $0 }) else { return }
                    made.withLock { $0 = true }
                    Task {
                        try? await Self.lose(
                            loss, dialog: picked.id, reader: reader, owner: picked.owner, emulator: emulator)
                        lost.continuation.finish()
                    }
                })
            try #require(made.withLock { $0 }, "the listing ended")
            for await _ in lost.stream {}

            let archived = try await setup.archive.messages(dialogID: picked.id).map(\.id)
            if loss == .deletedForEveryone {
                // Every lister answers 404: the first ``Crawl/readersTried`` are tried, then the dialog fails and
                // the run says so.
                #expect(summary.status == .partial)
                #expect(summary.dialogsFailed == 1)
                #expect(summary.failures[picked.id]?.contains("404") == true, "\(summary.failures)")
                #expect(log.all.map(\.to) == Array(picked.occupants.dropFirst().prefix(Crawl.readersTried - 1)))
                #expect(archived.isEmpty)
            } else {
                #expect(summary.status == .complete, "\(summary.failures)")
                #expect(summary.dialogsFailed == 0)
                #expect(log.all.count == 1)
                #expect(log.all.first?.id == picked.id)
                #expect(log.all.first?.from == reader)
                #expect(log.all.first?.to == next)
                // Every message the next lister sees is archived, and the run's totals count every message stored.
                let expected = try #require(picked.visible[next])
                #expect(expected.count > 25, "several pages")
                #expect(Set(archived).symmetricDifference(expected).isEmpty)
            }
            let stored = try await setup.archived()
            #expect(summary.messagesNew == stored.count)
        }
    }
}
