import ArchiveSQLite
import Foundation
import QuickBlox
import Testing

@testable import Crawler
@testable import QuickBloxEmulator

/// In app scope the users' dialog lists are read one after another, and an occupant whose list lacks a dialog
/// others list is recorded as having hidden it. A dialog deleted for everyone between two users' lists is listed by
/// the first and lacked by the second, though the second hid nothing: the run learns it when every reader of the
/// dialog answers 404, and withdraws the hides its listing recorded (``Crawl/outcome(of:since:runStart:slots:)``).
/// An occupant who leaves the group between the lists is no hide either, once a later list's copy of the dialog no
/// longer names them (``Crawl/Target/departed``), nor is one whose list was read before the dialog was made (a hide is
/// recorded only for an occupant the archive knew before the run: ``Crawl/knownOccupants(of:)``). A user who did
/// remove the dialog for themselves keeps their hide.
@Suite("A dialog deleted for everyone while the users' lists are read is not recorded hidden for them")
struct ListingRaceTests {
    enum Change: String, CaseIterable, Sendable {
        /// Its owner deletes it for everyone (`force=1`) once its first occupant's list is read.
        case deletedForEveryone
        /// Its second occupant removes it from their own list once the first occupant's list is read.
        case removedBySecondOccupant
        /// Its second occupant leaves the group (`pull_all[occupants_ids]`) once the first occupant's list is read:
        /// the third occupant's copy, read later, no longer names them.
        case secondOccupantLeft
        /// The second occupant makes a new group with the same occupants once the first occupant's list is read:
        /// the later lists show it, the first occupant's did not.
        case groupCreatedBetweenLists
    }

    @Test(arguments: Change.allCases)
    func aListLackingTheDialogIsAHideOnlyWhenItsUserRemovedIt(_ change: Change) async throws {
        try await CrawlTests.run({ ReaderChangeTests.smallApp(&$0) }) { setup in
            let picked = try #require(try await ReaderChangeTests.pick(setup, type: 2, occupants: 3))
            let first = picked.occupants[0]
            let later = Array(picked.occupants.dropFirst())
            // A run before: the archive knows the dialog and its occupants (a hide is recorded only for an occupant
            // the archive knew as one); the next second, so the two runs' observations differ.
            #expect(try await setup.crawl(.app).status == .complete)
            try await Task.sleep(for: .milliseconds(1100))
            let crawl = setup.makeCrawl(.app, configure: { $0.pageSize = 25 })
            let runStart = Int(Date().timeIntervalSince1970)
            let readers = try await crawl.crawlUsers(at: runStart).map(\.id)
            #expect(readers == readers.sorted(), "users' lists are read in id order")
            var summary = CrawlSummary(startedAt: runStart)

            // The lists one at a time, the change made right after the first occupant's.
            var created: String?
            let targets = try await crawl.mergeListings(of: readers, runStart: runStart, into: &summary) { merge in
                for reader in readers {
                    try await crawl.forEachListing(of: [reader], createdUpTo: runStart) { try merge($0) }
                    guard reader == first else { continue }
                    let now = Int(Date().timeIntervalSince1970)
                    switch change {
                    case .deletedForEveryone:
                        _ = try await setup.emulator.store.deleteDialogs(
                            ids: [picked.id], by: picked.owner, force: true, now: now)
                    case .removedBySecondOccupant:
                        _ = try await setup.emulator.store.deleteDialogs(
                            ids: [picked.id], by: later[0], force: false, now: now)
                    case .secondOccupantLeft:
                        try await ReaderChangeTests.lose(
                            .leftTheGroup, dialog: picked.id, reader: later[0], owner: picked.owner,
                            emulator: setup.emulator)
                    case .groupCreatedBetweenLists:
                        let body: JSONValue = [
                            "type": 2, "name": "Made between the lists",
                            "occupants_ids": .array(picked.occupants.map(JSONValue.int)),
                        ]
                        let group = RequestParameters(
                            pairs: RequestParameters.flatten(body), object: body.objectValue ?? [:], queryPairs: [])
                        // Made in the run's first second: the lists' `created_at[lte]` bound takes it in.
                        created = try await setup.emulator.store.createDialog(group, by: later[0], now: runStart).id
                    }
                }
            }
            let target = try #require(targets.first { $0.dialog.id == picked.id })
            let listers: [Int] =
                switch change {
                case .deletedForEveryone: [first]
                case .removedBySecondOccupant, .secondOccupantLeft: [first] + later.dropFirst()
                case .groupCreatedBetweenLists: picked.occupants
                }
            #expect(target.listers == listers)
            // What the lists alone say: every later occupant's list lacks the dialog.
            let hiddenAfterListing = try await setup.archive.dialogSummary(id: picked.id)?.hiddenFor.map(\.user)
            let expectedHides: [Int] =
                switch change {
                case .deletedForEveryone: later
                case .removedBySecondOccupant: [later[0]]
                case .secondOccupantLeft, .groupCreatedBetweenLists: []
                }
            #expect(Set(hiddenAfterListing ?? []) == Set(expectedHides))

            let since = try await setup.archive.updatedSince(scope: "app")
            try await crawl.crawlMessages(targets, since: since, runStart: runStart, into: &summary)
            let hidden = try await setup.archive.dialogSummary(id: picked.id)?.hiddenFor.map(\.user) ?? []
            switch change {
            case .deletedForEveryone:
                // Its one lister answers 404: the dialog fails, and the hides its deletion made up are withdrawn.
                #expect(summary.dialogsFailed == 1)
                #expect(summary.status == .partial)
                #expect(summary.dialogHidesWithdrawn == later.count)
                #expect(hidden.isEmpty, "\(hidden)")
                #expect(summary.line.contains("\(later.count) dialog hides withdrawn"))
                // The next run with --reconcile finds it in no list: tombstoned, and hidden for nobody.
                let next = try await setup.crawl(.app, reconcile: true)
                #expect(next.dialogsDeleted == 1)
                let after = try await setup.archive.dialogSummary(id: picked.id)
                #expect(after?.deletedAt != nil)
                #expect(after?.hiddenFor.isEmpty == true)
            case .groupCreatedBetweenLists:
                // The new group is listed by the later occupants only; its first occupant's list, read before it
                // existed, is no hide.
                let id = try #require(created)
                #expect(targets.first { $0.dialog.id == id }?.listers == later)
                #expect(summary.dialogsFailed == 0, "\(summary.failures)")
                #expect(try await setup.archive.dialogSummary(id: id)?.hiddenFor.isEmpty == true)
                #expect(hidden.isEmpty)
            case .removedBySecondOccupant, .secondOccupantLeft:
                // Read as the first occupant: the second occupant's own removal stays recorded; leaving is no hide.
                #expect(summary.dialogsFailed == 0, "\(summary.failures)")
                #expect(summary.dialogHidesWithdrawn == 0)
                #expect(hidden == expectedHides)
                let stored = try await setup.archive.messages(dialogID: picked.id).map(\.id)
                #expect(Set(stored) == picked.visible[first])
            }
        }
    }
}
