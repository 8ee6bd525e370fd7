import Archive
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// Sorts the messages a dialog's reading view no longer lists into hidden-for-someone and
    /// deleted-for-everyone (QuickBlox reference §8: a `DELETE` without `force` removes a message for one
    /// user only).
    ///
    /// - User scope: one login's view proves only "gone from my view": the messages are recorded hidden for
    ///   that user and kept; nothing is tombstoned.
    /// - App scope: the other users who list the dialog are asked about exactly these ids
    ///   (`_id[in]`, ≤ ``recheckBatch`` ids a request) — the dialog's owner first, then in listing order —
    ///   until every id is found or ``CrawlOptions/recheckViews`` users were asked. A message another view
    ///   lists is hidden for the views that did not; one that no user who lists the dialog shows any more
    ///   is tombstoned with those views as its ``DeletionEvidence``. In a group larger than the limit, what
    ///   every asked view lacks is kept as hidden for them and counted unconfirmed (not proven deleted).
    ///
    /// Cost: one request per asked user per ``recheckBatch`` candidates, and only for dialogs whose count
    /// changed; docs/performance.md gives the counts for a 1,000-occupant group.
    func resolve(
        _ candidates: Set<String>, in target: Target, view: Int?, at now: Int, into summary: inout CrawlSummary
    ) async throws {
        guard let view else { return }  // an API key alone has no view to attribute a hide to: keep everything
        guard options.scope == .app else {
            summary.messagesHidden += try await archive.recordHidden(
                messageIDs: candidates.sorted(), for: view, at: now)
            return
        }
        let others = recheckOrder(target, view: view)
        let limit = recheckLimit(target)
        var remaining = candidates
        var absentFrom = [view]
        var notListing: [(user: Int, ids: Set<String>)] = []
        var attempted = 0
        for user in others.prefix(limit) where !remaining.isEmpty {
            attempted += 1
            // `nil`: the user cannot read the dialog now (left it, or removed it for themselves).
            guard let found = try await listed(remaining, dialogID: target.dialog.id, by: user) else { continue }
            absentFrom.append(user)
            notListing.append((user, remaining.subtracting(found)))
            remaining.subtract(found)
        }
        let visible = candidates.subtracting(remaining)
        if !visible.isEmpty {
            summary.messagesHidden += try await archive.recordHidden(messageIDs: visible.sorted(), for: view, at: now)
            for (user, ids) in notListing where !ids.isDisjoint(with: visible) {
                summary.messagesHidden += try await archive.recordHidden(
                    messageIDs: ids.intersection(visible).sorted(), for: user, at: now)
            }
        }
        guard !remaining.isEmpty else { return }
        if attempted == others.count {
            let evidence = DeletionEvidence(absentFrom: absentFrom, readers: max(target.listers.count, 1))
            summary.messagesDeleted += try await archive.tombstoneMessages(
                ids: remaining.sorted(), evidence: evidence, at: now)
        } else {
            for user in absentFrom {
                _ = try await archive.recordHidden(messageIDs: remaining.sorted(), for: user, at: now)
            }
            summary.messagesUnconfirmed += remaining.count
            logger.warning(
                "messages gone from every view checked, kept as hidden",
                metadata: [
                    "dialog": "\(target.dialog.id)", "messages": "\(remaining.count)",
                    "views": "\(absentFrom.count) of \(target.listers.count)",
                ])
        }
    }

    /// How many other users are asked about a dialog (``CrawlOptions/recheckViews``; 0: all).
    func recheckLimit(_ target: Target) -> Int {
        options.recheckViews == 0 ? target.listers.count : options.recheckViews
    }

    /// Ids per re-check request.
    static let recheckBatch = 50

    /// Who is asked, in order: the dialog's owner, then the other users who list it, in listing order.
    func recheckOrder(_ target: Target, view: Int) -> [Int] {
        var order: [Int] = []
        var seen: Set<Int> = [view]
        let owner = target.dialog.userID.flatMap { target.listers.contains($0) ? $0 : nil }
        for user in [owner].compactMap({ $0 }) + target.listers where seen.insert(user).inserted {
            order.append(user)
        }
        return order
    }

    /// Which of `ids` `user`'s view lists; `nil` when the user cannot read the dialog (403, 404).
    ///
    /// Per batch, the view's `count=1` of those ids says how many it lists, and pages are asked until that
    /// many were seen (up to ``recheckAttempts``): a page cut short never passes for a deletion, and a batch
    /// the view lists none of costs one request.
    func listed(_ ids: Set<String>, dialogID: String, by user: Int) async throws -> Set<String>? {
        var found: Set<String> = []
        let sorted = ids.sorted()
        for start in stride(from: 0, to: sorted.count, by: Self.recheckBatch) {
            let batch = Array(sorted[start..<min(sorted.count, start + Self.recheckBatch)])
            let filter = ("_id[in]", batch.joined(separator: ","))
            guard
                let expected = try await readable({ () async throws(QuickBloxClientError) -> Int in
                    try await client.messageCount(dialogID: dialogID, [filter], onBehalfOf: user)
                })
            else { return nil }
            var missing = Set(batch)
            for _ in 0..<Self.recheckAttempts where batch.count - missing.count < expected {
                let asked = ("_id[in]", missing.sorted().joined(separator: ","))
                guard
                    let page = try await readable({ () async throws(QuickBloxClientError) -> Page<Message> in
                        try await client.messages(dialogID: dialogID, [asked, ("limit", "100")], onBehalfOf: user)
                    })
                else { return nil }
                let hits = Set(page.items.map(\.id)).intersection(missing)
                found.formUnion(hits)
                missing.subtract(hits)
            }
        }
        return found
    }

    /// Pages asked per re-check batch before what the count promised is taken as all there is.
    static let recheckAttempts = 4

    /// The answer of `request`, or `nil` when the user cannot read the dialog (403, 404).
    private func readable<T: Sendable>(_ request: () async throws(QuickBloxClientError) -> T) async throws -> T? {
        let result: Result<T, QuickBloxClientError>
        do {
            result = .success(try await request())
        } catch {
            result = .failure(error)
        }
        if case .failure(let error) = result, error.status == 403 || error.status == 404 { return nil }
        return try result.get()
    }
}
