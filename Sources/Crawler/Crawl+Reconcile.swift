import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// Compares each dialog's server count (in its reading view) with the archive; where they differ,
    /// walks the dialog again, stores what was missed, and sorts what the view no longer lists into
    /// hidden-for-someone and deleted-for-everyone (``resolve(_:in:view:at:into:)``).
    ///
    /// Dialogs: in app scope, one that no user's list shows any more (every list read) is tombstoned; in
    /// user scope it is recorded as hidden for the session's user — one view cannot prove more.
    func reconcile(_ targets: [Target], at now: Int, into summary: inout CrawlSummary) async throws {
        let viewer = options.scope == .user ? try await client.viewerID() : nil
        if options.dialogIDs.isEmpty, summary.listingsFailed == 0 {
            let listed = Set(targets.map(\.dialog.id))
            for gone in Set(try await archive.liveDialogIDs()).subtracting(listed).sorted() {
                if options.scope == .app {
                    let evidence = DeletionEvidence(absentFrom: [], readers: summary.users, scope: "app")
                    if try await archive.tombstoneDialog(id: gone, evidence: evidence, at: now) {
                        summary.dialogsDeleted += 1
                    }
                } else if let viewer, try await archive.recordDialogHidden(id: gone, for: viewer, at: now) {
                    summary.dialogsHidden += 1
                }
            }
        }
        let before = summary.messagesDeleted
        for target in targets where summary.failures[target.dialog.id] == nil {
            do {
                try await reconcile(target, view: target.reader ?? viewer, at: now, into: &summary)
            } catch let error as QuickBloxClientError where !Self.endsRun(error) {
                // Like a dialog failing while paging: recorded, the run ends partial, the others go on.
                fail(target, "reconcile: \(error.localizedDescription)", into: &summary)
            } catch let gap as ReconcileGap {
                fail(target, gap.description, into: &summary)
            }
        }
        events(.tombstoned(messages: summary.messagesDeleted - before, dialogs: summary.dialogsDeleted))
    }

    private func fail(_ target: Target, _ reason: String, into summary: inout CrawlSummary) {
        summary.dialogsFailed += 1
        summary.failures[target.dialog.id] = reason
        summary.status = .partial
        logger.error("dialog reconcile failed", metadata: ["dialog": "\(target.dialog.id)", "error": "\(reason)"])
        events(.dialogFailed(id: target.dialog.id, reason: reason))
    }

    /// A dialog whose server count and archive still disagree after walking it again.
    struct ReconcileGap: Error, CustomStringConvertible {
        var server: Int
        var archived: Int
        var description: String {
            "reconcile: the server lists \(server) messages, the archive holds \(archived) for the same view "
                + "after walking the dialog again; run `crawl --reconcile` again"
        }
    }

    /// Reconciles one dialog: up to ``maxReconcileWalks`` walks until the view's count and the archive agree.
    private func reconcile(_ target: Target, view: Int?, at now: Int, into summary: inout CrawlSummary) async throws {
        let dialogID = target.dialog.id
        var walks = 0
        while true {
            let serverCount = try await client.messageCount(dialogID: dialogID, onBehalfOf: target.reader)
            let archived = try await viewable(dialogID: dialogID, view: view)
            // Dated `now`, like what this reconcile stores and tombstones (coverage in `qbarchive stats`).
            try await archive.recordServerCount(dialogID: dialogID, count: serverCount, at: now)
            if serverCount == archived.count { return }
            guard walks < Self.maxReconcileWalks else {
                throw ReconcileGap(server: serverCount, archived: archived.count)
            }
            walks += 1
            var onServer: Set<String> = []
            var pager = MessagePager(client: client, dialogID: dialogID, onBehalfOf: target.reader)
            pager.pageSize = options.pageSize
            pager.newest = target.newest
            try await pager.walk(from: CrawlCursor()) { batch in
                onServer.formUnion(batch.messages.map(\.id))
                // Everything the view lists that the archive does not hold as viewable: new, or back.
                let missed = zip(batch.messages, batch.rawMessages).filter { !archived.contains($0.0.id) }
                if !missed.isEmpty {
                    let stored = try await archive.storeMessages(
                        Array(missed), dialogID: dialogID, cursor: nil, observedAt: now, indexFiles: indexFiles)
                    summary.messagesNew += stored.new
                }
            }
            if let view {
                // Recorded hidden for this view but listed by it: the record was wrong (a page lost it).
                let back = Set(try await archive.hiddenMessageIDs(dialogID: dialogID, for: view)).intersection(onServer)
                if !back.isEmpty { try await archive.forgetHidden(messageIDs: back.sorted(), for: view) }
            }
            let candidates = archived.subtracting(onServer)
            if !candidates.isEmpty {
                try await resolve(candidates, in: target, view: view, at: now, into: &summary)
            }
        }
    }

    /// Walks a reconcile makes of one dialog before it reports the gap (exit 3).
    static let maxReconcileWalks = 2

    /// The dialog's messages the archive holds as visible to `view`: not tombstoned, not hidden for it.
    private func viewable(dialogID: String, view: Int?) async throws -> Set<String> {
        let live = Set(try await archive.liveMessageIDs(dialogID: dialogID))
        guard let view else { return live }
        return live.subtracting(try await archive.hiddenMessageIDs(dialogID: dialogID, for: view))
    }
}
