import Archive
import ArchiveSQLite
import Foundation
import QuickBlox
import Testing

@testable import Crawler

/// A user-scope reconcile records a dialog missing from the session user's list as hidden for that user only when
/// the user could have listed it. On an app-scope archive (or one whose login changed) every dialog of other
/// people is missing from the list because it never was there; each was once recorded as hidden by the user.
@Suite("A user-scope reconcile records hides only for dialogs the user could list")
struct UserScopeReconcileHidesTests {
    @Test func dialogsOfOtherPeopleAreNotHiddenForTheSessionUser() async throws {
        try await CrawlTests.run({ ReaderChangeTests.smallApp(&$0) }) { setup in
            #expect(try await setup.crawl(.app).status == .complete)
            let viewer = try #require(try await setup.archive.userID(login: "user1"))
            var others: [String] = []
            for id in try await setup.archive.liveDialogIDs() {
                let dialog = try #require(try await setup.archive.dialogSummary(id: id))
                if dialog.type != 1, !dialog.occupants.contains(where: { $0.id == viewer }) { others.append(id) }
            }
            #expect(!others.isEmpty, "the data set has dialogs user1 is not in")

            let reconciled = try await setup.crawl(.user, reconcile: true)
            #expect(reconciled.status == .complete, "\(reconciled.failures)")
            for id in others {
                let dialog = try #require(try await setup.archive.dialogSummary(id: id))
                #expect(dialog.hiddenFor.isEmpty, "\(id) of \(dialog.occupants.map(\.id)) hidden for \(viewer)")
                #expect(dialog.deletedAt == nil)
            }
            #expect(reconciled.dialogsHidden == 0)
        }
    }
}
