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
    /// user scope it is recorded as hidden for the session's user — one view cannot prove more — when that user
    /// could list it: an occupant, or anyone for a public dialog (``mayHaveListed(_:viewer:)``).
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
                } else if let viewer, try await mayHaveListed(gone, viewer: viewer),
                    try await archive.recordDialogHidden(id: gone, for: viewer, at: now)
                {
                    summary.dialogsHidden += 1
                }
            }
        }
        let before = summary.messagesDeleted
        // Dialogs `options.concurrency` at a time, each with its own tallies, merged as they finish.
        let pending = targets.filter { summary.failures[$0.dialog.id] == nil }
        try await withThrowingTaskGroup(of: (Target, CrawlSummary, (any Error)?).self) { group in
            var queue = pending.makeIterator()
            func start(_ target: Target) {
                group.addTask {
                    var tally = CrawlSummary(startedAt: now)
                    do {
                        try await self.reconcile(target, viewer: viewer, at: now, into: &tally)
                        return (target, tally, nil)
                    } catch {
                        return (target, tally, error)
                    }
                }
            }
            for _ in 0..<max(1, options.concurrency) {
                guard let target = queue.next() else { break }
                start(target)
            }
            while let (target, tally, error) = try await group.next() {
                summary.messagesNew += tally.messagesNew
                summary.messagesDeleted += tally.messagesDeleted
                summary.messagesHidden += tally.messagesHidden
                summary.messagesUnconfirmed += tally.messagesUnconfirmed
                if let error {
                    if Self.endsRun(error) { throw error }
                    if let gap = error as? ReconcileGap {
                        fail(target, gap.description, into: &summary)
                    } else if let clientError = error as? QuickBloxClientError {
                        // Like a dialog failing while paging: recorded, the run ends partial, the others go on.
                        fail(target, "reconcile: \(clientError.localizedDescription)", into: &summary)
                    } else {
                        throw error
                    }
                }
                if !Task.isCancelled, let next = queue.next() { start(next) }
            }
        }
        events(.tombstoned(messages: summary.messagesDeleted - before, dialogs: summary.dialogsDeleted))
    }

    /// Reconciles one dialog in every view it checks, then records the reading view's count.
    private func reconcile(_ target: Target, viewer: Int?, at now: Int, into summary: inout CrawlSummary)
        async throws
    {
        guard options.scope == .app, let reader = target.reader else {
            let count = try await reconcile(
                target, view: viewer, onBehalfOf: target.reader, since: nil, at: now, into: &summary)
            try await recordServerCount(target, view: viewer, count: count, at: now)
            return
        }
        // Each view may lack what its user removed for themselves, before or after a crawl read it: the
        // reader and, within the limit, the other users who list the dialog.
        let since = try await archive.crawlState(dialogID: target.dialog.id)?.reconciledAt
        var count = try await reconcile(target, view: reader, onBehalfOf: reader, since: since, at: now, into: &summary)
        let found = summary.messagesNew
        for view in recheckOrder(target, view: reader).prefix(recheckLimit(target)) {
            do {
                _ = try await reconcile(target, view: view, onBehalfOf: view, since: since, at: now, into: &summary)
            } catch let error as QuickBloxClientError where error.status == 403 || error.status == 404 {
                continue  // this user no longer reads the dialog (left it, or removed it for themselves)
            }
        }
        if summary.messagesNew > found {
            // Other views held messages the reader does not list: the reader's walk now sorts them (hidden for
            // the reader, as another view shows them).
            count = try await reconcile(target, view: reader, onBehalfOf: reader, since: since, at: now, into: &summary)
        }
        try await recordServerCount(target, view: reader, count: count, at: now)
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

    /// Reconciles one dialog in one view, and returns the view's message count as the server last gave it.
    ///
    /// Another user's view first gets a walk of what changed since the dialog's last reconcile (all of it the
    /// first time): messages the reader removed for themselves before any crawl read them are only there.
    /// Then the view's `count=1` is compared with what the archive holds as visible to it; where they
    /// differ the dialog is walked in that view, what the archive lacks is stored, and what the view no
    /// longer lists is sorted (``resolve(_:in:view:at:into:)``) — up to ``maxReconcileWalks`` walks, else
    /// the gap is reported (exit 3).
    private func reconcile(
        _ target: Target, view: Int?, onBehalfOf requester: Int?, since: Int?, at now: Int,
        into summary: inout CrawlSummary
    ) async throws -> Int {
        let dialogID = target.dialog.id
        if requester != target.reader {
            var pager = MessagePager(client: client, dialogID: dialogID, onBehalfOf: requester)
            pager.pageSize = options.pageSize
            if let since { pager.filters = [("updated_at[gte]", String(since - Self.clockMargin))] }
            // Everything in the window is stored (new, or edited: the reader's own `updated_at` pass cannot
            // see an edit of a message the reader removed for themselves).
            try await pager.walk(from: CrawlCursor()) { batch in
                summary.messagesNew += try await storeMissing(batch, notIn: [], dialogID: dialogID, at: now)
            }
        }
        var walks = 0
        while true {
            let serverCount = try await client.messageCount(dialogID: dialogID, onBehalfOf: requester)
            let archived = try await viewable(dialogID: dialogID, view: view)
            if serverCount == archived.count { return serverCount }
            guard walks < Self.maxReconcileWalks else {
                throw ReconcileGap(server: serverCount, archived: archived.count)
            }
            walks += 1
            var onServer: Set<String> = []
            var pager = MessagePager(client: client, dialogID: dialogID, onBehalfOf: requester)
            pager.pageSize = options.pageSize
            pager.newest = requester == target.reader ? target.newest : nil
            pager.expectedCount = serverCount
            try await pager.walk(from: CrawlCursor()) { batch in
                onServer.formUnion(batch.messages.map(\.id))
                // Everything the view lists that the archive does not hold as viewable: new, or back.
                summary.messagesNew += try await storeMissing(batch, notIn: archived, dialogID: dialogID, at: now)
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

    /// Records the reading view's count plus what the archive holds as hidden for that view (still on the
    /// server for others), once every view of the dialog was reconciled, dated `now` like what the reconcile
    /// stored and tombstoned: when they agree it equals the archive's live messages (coverage in
    /// `qbarchive stats`).
    private func recordServerCount(_ target: Target, view: Int?, count: Int, at now: Int) async throws {
        let live = try await archive.liveMessageIDs(dialogID: target.dialog.id).count
        let viewable = try await viewable(dialogID: target.dialog.id, view: view).count
        try await archive.recordServerCount(dialogID: target.dialog.id, count: count + live - viewable, at: now)
    }

    /// Stores the messages of a page that are not in `archived`; returns how many were new to the archive.
    private func storeMissing(_ batch: MessagePager.Batch, notIn archived: Set<String>, dialogID: String, at now: Int)
        async throws -> Int
    {
        let missed = zip(batch.messages, batch.rawMessages).filter { !archived.contains($0.0.id) }
        guard !missed.isEmpty else { return 0 }
        return try await archive.storeMessages(
            Array(missed), dialogID: dialogID, cursor: nil, observedAt: now, indexFiles: indexFiles
        ).new
    }

    /// Walks a reconcile makes of one dialog before it reports the gap (exit 3).
    static let maxReconcileWalks = 2

    /// The dialog's messages the archive holds as visible to `view`: not tombstoned, not hidden for it.
    private func viewable(dialogID: String, view: Int?) async throws -> Set<String> {
        let live = Set(try await archive.liveMessageIDs(dialogID: dialogID))
        guard let view else { return live }
        return live.subtracting(try await archive.hiddenMessageIDs(dialogID: dialogID, for: view))
    }

    /// Whether `viewer`'s dialog list could have shown the archived dialog `id`: a public dialog, or one the
    /// archive knows `viewer` occupies. A dialog of other people (an app-scope archive crawled once as one
    /// user, or an archive whose login changed) is missing from `viewer`'s list because it never was there:
    /// recording it as hidden by `viewer` would be false evidence.
    func mayHaveListed(_ id: String, viewer: Int) async throws -> Bool {
        guard let dialog = try await archive.dialogSummary(id: id) else { return false }
        return dialog.type == 1 || dialog.occupants.contains { $0.id == viewer }
    }
}
