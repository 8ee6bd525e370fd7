import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// Compares server counts with the archive; where they differ, stores what was missed and
    /// tombstones what the server no longer has. Dialogs no longer listed are tombstoned too.
    func reconcile(_ targets: [Target], at now: Int, into summary: inout CrawlSummary) async throws {
        if options.dialogIDs.isEmpty, summary.listingsFailed == 0 {
            let listed = Set(targets.map(\.dialog.id))
            for gone in Set(try await archive.liveDialogIDs()).subtracting(listed).sorted() {
                try await archive.tombstoneDialog(id: gone, at: now)
                summary.dialogsDeleted += 1
            }
        }
        var tombstoned = 0
        for target in targets where summary.failures[target.dialog.id] == nil {
            do {
                tombstoned += try await reconcile(target, at: now, into: &summary)
            } catch let error as QuickBloxClientError where !Self.endsRun(error) {
                // Like a dialog failing while paging: recorded, the run ends partial, the others go on.
                summary.dialogsFailed += 1
                summary.failures[target.dialog.id] = "reconcile: \(error.localizedDescription)"
                summary.status = .partial
                logger.error(
                    "dialog reconcile failed",
                    metadata: ["dialog": "\(target.dialog.id)", "error": "\(error.localizedDescription)"])
                events(.dialogFailed(id: target.dialog.id, reason: "reconcile: \(error.localizedDescription)"))
            }
        }
        summary.messagesDeleted += tombstoned
        events(.tombstoned(messages: tombstoned, dialogs: summary.dialogsDeleted))
    }

    /// Reconciles one dialog; returns the messages tombstoned.
    private func reconcile(_ target: Target, at now: Int, into summary: inout CrawlSummary) async throws -> Int {
        let archived = Set(try await archive.liveMessageIDs(dialogID: target.dialog.id))
        let serverCount = try await client.messageCount(dialogID: target.dialog.id, onBehalfOf: target.reader)
        // Dated `now`, like what this reconcile stores and tombstones: after it, the archive's live
        // messages first seen by `now` number exactly `serverCount` (coverage in `qbarchive stats`).
        try await archive.recordServerCount(dialogID: target.dialog.id, count: serverCount, at: now)
        guard serverCount != archived.count else { return 0 }
        var onServer: Set<String> = []
        var pager = MessagePager(client: client, dialogID: target.dialog.id, onBehalfOf: target.reader)
        pager.pageSize = options.pageSize
        try await pager.walk(from: CrawlCursor()) { batch in
            onServer.formUnion(batch.messages.map(\.id))
            let missed = zip(batch.messages, batch.rawMessages).filter { !archived.contains($0.0.id) }
            if !missed.isEmpty {
                let stored = try await archive.storeMessages(
                    Array(missed), dialogID: target.dialog.id, cursor: nil, observedAt: now, indexFiles: indexFiles)
                summary.messagesNew += stored.new
            }
        }
        let gone = archived.subtracting(onServer).sorted()
        if !gone.isEmpty { try await archive.tombstoneMessages(ids: gone, at: now) }
        return gone.count
    }
}
