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
                if options.scope == .app, let reader = target.reader {
                    // Each view may lack what its user removed for themselves, before or after a crawl read
                    // it: the reader and, within the limit, the other users who list the dialog.
                    var count = try await reconcile(target, view: reader, onBehalfOf: reader, at: now, into: &summary)
                    let found = summary.messagesNew
                    for view in recheckOrder(target, view: reader).prefix(recheckLimit(target)) {
                        do {
                            _ = try await reconcile(target, view: view, onBehalfOf: view, at: now, into: &summary)
                        } catch let error as QuickBloxClientError
                            where view != reader && (error.status == 403 || error.status == 404)
                        {
                            continue  // this user no longer reads the dialog (left it, or removed it for themselves)
                        }
                    }
                    if summary.messagesNew > found {
                        // Other views held messages the reader does not list: the reader's walk now sorts them
                        // (hidden for the reader, as another view shows them).
                        count = try await reconcile(target, view: reader, onBehalfOf: reader, at: now, into: &summary)
                    }
                    try await recordServerCount(target, view: reader, count: count, at: now)
                } else {
                    let count = try await reconcile(
                        target, view: viewer, onBehalfOf: target.reader, at: now, into: &summary)
                    try await recordServerCount(target, view: viewer, count: count, at: now)
                }
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

    /// Reconciles one dialog in one view: walks it (a count alone cannot tell a message this view lacks
    /// from one it hid that the archive still counts for it), stores what the archive lacks, sorts what the
    /// view no longer lists (``resolve(_:in:view:at:into:)``), then checks the view's count; up to
    /// ``maxReconcileWalks`` walks until they agree, else the gap is reported (exit 3).
    ///
    /// - Returns: the view's message count, as the server last reported it.
    private func reconcile(
        _ target: Target, view: Int?, onBehalfOf requester: Int?, at now: Int, into summary: inout CrawlSummary
    ) async throws -> Int {
        let dialogID = target.dialog.id
        for _ in 0..<Self.maxReconcileWalks {
            let archived = try await viewable(dialogID: dialogID, view: view)
            var onServer: Set<String> = []
            var pager = MessagePager(client: client, dialogID: dialogID, onBehalfOf: requester)
            pager.pageSize = options.pageSize
            pager.newest = requester == target.reader ? target.newest : nil
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
            let serverCount = try await client.messageCount(dialogID: dialogID, onBehalfOf: requester)
            let after = try await viewable(dialogID: dialogID, view: view)
            if serverCount == after.count { return serverCount }
        }
        let serverCount = try await client.messageCount(dialogID: dialogID, onBehalfOf: requester)
        throw ReconcileGap(server: serverCount, archived: try await viewable(dialogID: dialogID, view: view).count)
    }

    /// Records the reading view's count plus what the archive holds as hidden for that view (still on the
    /// server for others), once every view of the dialog was reconciled, dated `now` like what the reconcile
    /// stored and tombstoned: when they agree it equals the archive's live messages (coverage in
    /// `qbarchive stats`).
    private func recordServerCount(_ target: Target, view: Int?, count: Int, at now: Int) async throws {
        let live = try await archive.liveMessageIDs(dialogID: target.dialog.id).count
        let viewable = try await viewable(dialogID: target.dialog.id, view: view).count
        try await archive.recordServerCount(dialogID: target.dialog.id, count: count + live - viewable, at: now)
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
