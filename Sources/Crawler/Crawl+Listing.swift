import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// One reader's dialog list, or why it could not be read.
    struct Listing: Sendable {
        var reader: Int?
        var result: Result<[Entry], any Error>

        /// One dialog of a list as it waits to be merged: its id, and the server's JSON as bytes.
        ///
        /// In app scope every user lists every public dialog, and up to twice the concurrency lists wait for
        /// the merge. Kept parsed (a ``Dialog`` beside its `JSONValue`, about 3.7 KB a dialog), they set the
        /// crawl's peak memory, which grew with the dialogs a user sees: 213 MiB when the listing of 5M messages'
        /// 10,000 dialogs ended, 129 MiB as entries (docs/performance.md). Entries are made page by page
        /// (``DialogLister/entries(createdUpTo:)``); only the first reader of a dialog needs it parsed, at the
        /// merge (``parsed()``), and the others add their name to its listers.
        struct Entry: Sendable {
            var id: String
            var json: [UInt8]

            init(id: String, raw: JSONValue) {
                self.id = id
                json = raw.serialized()
            }

            init(raw: JSONValue) throws {
                id = try Dialog(json: raw).id
                json = raw.serialized()
            }

            /// The dialog and its JSON, parsed again.
            func parsed() throws -> (dialog: Dialog, raw: JSONValue) {
                let raw = try JSONValue(parsing: json)
                return (try Dialog(json: raw), raw)
            }
        }
    }

    /// Reads each reader's dialog list, ``CrawlOptions/concurrency`` lists at a time, and hands them to `merge`
    /// in the readers' order (so the first reader to list a dialog stays its reader, whatever answered first).
    ///
    /// In app scope there is one list per user: one after the other, at 100 ms a response, 100 users took
    /// 10 s before the first message was asked for (and crawl workers waited for that one lister). Lists that
    /// come early wait for the ones before them, never more than twice the concurrency, so memory does not
    /// grow with the number of users. Authentication and cancellation end the run (rethrown); any other error
    /// is that reader's listing.
    func forEachListing(
        of readers: [Int?], createdUpTo runStart: Int, _ merge: (Listing) throws -> Void
    ) async throws {
        let concurrency = max(1, options.concurrency)
        try await withThrowingTaskGroup(of: (Int, Listing).self) { group in
            var started = 0
            var running = 0
            var merged = 0
            var early: [Int: Listing] = [:]
            repeat {
                while running < concurrency, started < readers.count, started - merged < 2 * concurrency {
                    let (offset, reader) = (started, readers[started])
                    group.addTask { try await listing(offset: offset, reader: reader, createdUpTo: runStart) }
                    started += 1
                    running += 1
                }
                guard let (offset, listing) = try await group.next() else { break }
                running -= 1
                early[offset] = listing
                while let next = early.removeValue(forKey: merged) {
                    try merge(next)
                    merged += 1
                }
            } while merged < readers.count
        }
    }

    /// One reader's list, tagged with its place among the readers.
    private func listing(offset: Int, reader: Int?, createdUpTo runStart: Int) async throws -> (Int, Listing) {
        let lister = DialogLister(client: client, onBehalfOf: reader)
        do {
            let dialogs = try await lister.entries(createdUpTo: runStart)
            return (offset, Listing(reader: reader, result: .success(dialogs)))
        } catch {
            if reader == nil || Self.endsRun(error) { throw error }
            return (offset, Listing(reader: reader, result: .failure(error)))
        }
    }

    /// Merges the readers' dialog lists, handed by `source` in the readers' order, into the crawl's dialogs:
    /// de-duplicated (the first reader to list a dialog reads it), stored, hides recorded, in crawl order.
    /// The lists come from this process (``forEachListing(of:createdUpTo:_:)``) or from the listing parts
    /// workers of a shared crawl read.
    func mergeListings(
        of readers: [Int?], runStart: Int, into summary: inout CrawlSummary,
        _ source: ((Listing) throws -> Void) async throws -> Void
    ) async throws -> [Target] {
        var targets: [String: Target] = [:]
        var lastFailure: (any Error)?
        var failed = 0
        var failures: [String: String] = [:]
        try await source { listing in
            let reader = listing.reader
            switch listing.result {
            case .success(let dialogs):
                for entry in dialogs {
                    if !options.dialogIDs.isEmpty, !options.dialogIDs.contains(entry.id) { continue }
                    if let target = targets[entry.id] {
                        if target.dialog.type != .publicGroup {
                            // Later lists' copies, read only where a hide may be recorded: who left meanwhile.
                            let occupants = Set(try entry.parsed().dialog.occupantIDs)
                            targets[entry.id]?.departed.formUnion(
                                target.dialog.occupantIDs.filter { !occupants.contains($0) })
                        }
                    } else {
                        let (dialog, raw) = try entry.parsed()
                        targets[entry.id] = Target(dialog: dialog, raw: raw, reader: reader)
                    }
                    if let reader { targets[entry.id]?.listers.append(reader) }
                }
            case .failure(let error):
                guard let user = reader else { throw error }
                lastFailure = error
                failed += 1
                failures["user \(user)"] = "dialog list: \(error.localizedDescription)"
                logger.error(
                    "dialog list failed", metadata: ["user": "\(user)", "error": "\(error.localizedDescription)"])
                events(.listingFailed(user: user, reason: error.localizedDescription))
            }
        }
        if failed > 0 {
            summary.listingsFailed += failed
            summary.failures.merge(failures) { _, new in new }
            summary.status = .partial
        }
        if let lastFailure, summary.listingsFailed == readers.count { throw lastFailure }
        let ordered = targets.values.sorted {
            ($0.dialog.createdAt ?? 0, $0.dialog.id) < ($1.dialog.createdAt ?? 0, $1.dialog.id)
        }
        let recordsHides = options.scope == .app && summary.listingsFailed == 0
        // Read before the lists' copies are stored over them.
        let known = recordsHides ? try await knownOccupants(of: ordered.filter { !$0.absent.isEmpty }) : [:]
        try await archive.storeDialogs(ordered.map { ($0.dialog, $0.raw) }, observedAt: runStart)
        if recordsHides {
            for target in ordered {
                for user in target.absent.intersection(known[target.dialog.id] ?? []).sorted() {
                    if try await archive.recordDialogHidden(id: target.dialog.id, for: user, at: runStart) {
                        summary.dialogsHidden += 1
                    }
                }
            }
        }
        return Target.crawlOrder(ordered)
    }

    /// The occupants the archive knew, before this run, of each dialog of `targets` it holds live.
    ///
    /// A user's list lacking a dialog is a hide only if the dialog was theirs when their list was read, and the lists
    /// are read one after another while the app goes on: a group created, or a user added to one, after that user's
    /// list was read and before another occupant's is listed by the later lists only. So a hide is recorded only
    /// for an occupant the archive already knew as one: a dialog new to the archive, or an occupant new to the
    /// dialog, gets the hide the next run observes, if it is still missing then.
    func knownOccupants(of targets: [Target]) async throws -> [String: Set<Int>] {
        guard !targets.isEmpty else { return [:] }
        let ids = targets.map(\.dialog.id)
        return try await archive.withSnapshot { snapshot in
            var known: [String: Set<Int>] = [:]
            for try await batch in snapshot.dialogs(ids: ids) {
                for dialog in batch where dialog.deletedAt == nil {
                    known[dialog.id] = Set((try? JSONValue(parsing: dialog.occupantIDsJSON))?.lenientIntArray ?? [])
                }
            }
            return known
        }
    }
}

extension Crawl.Target {
    /// App scope: occupants whose own list lacked the dialog while others listed it — removed for themselves, unless
    /// they left meanwhile (``departed``) or were not occupants yet when their list was read
    /// (``Crawl/knownOccupants(of:)``). None for a public dialog, which every user lists.
    var absent: Set<Int> {
        guard dialog.type != .publicGroup else { return [] }
        return Set(dialog.occupantIDs).subtracting(listers).subtracting(departed)
    }
}
