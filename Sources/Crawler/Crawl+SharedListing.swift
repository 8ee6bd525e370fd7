import Archive
import Foundation
import QuickBlox

extension Crawl {
    /// App scope, as the worker holding the listing claim: publishes the users as listing parts, lists parts
    /// with the other workers until every part is listed, then merges them in the users' order (the same merge
    /// as a crawl alone). Returns the crawl's dialogs and how many users it has.
    ///
    /// One process listing a hundred users at 100 ms, two at a time, took 5–6 s while every other worker
    /// waited (docs/performance.md); the waiting workers now list a share each. A lister that stopped after
    /// publishing the parts is taken over: the next one finds the parts and goes on with them.
    func listShared(
        _ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions,
        into summary: inout CrawlSummary
    ) async throws -> (targets: [Target], users: Int) {
        let all: [Int]
        if let published = try await shared.listingReaders(membership) {
            all = published
        } else {
            all = try await crawlUsers(at: membership.startedAt).map(\.id)
            try await shared.publishListingParts(
                membership, readers: all, partSize: Self.listingPartSize(options.concurrency))
        }
        listing: while !all.isEmpty {
            switch try await listPart(shared, membership, worker: worker) {
            case .listed: break listing
            case .part: continue
            // Others hold the last parts: they take a few requests' time, so look again soon.
            case .wait, .notPublished: try await Task.sleep(for: min(worker.poll, .milliseconds(100)))
            }
        }
        let targets = try await mergeListings(of: all, runStart: membership.startedAt, into: &summary) { merge in
            try await shared.forEachListedPart(membership) { lists in
                for list in lists { try merge(Listing(list)) }
            }
        }
        return (targets, all.count)
    }

    /// Claims a listing part, when one is open, and lists its users' dialogs (``CrawlOptions/concurrency`` at
    /// a time); returns the claim.
    func listPart(_ shared: any SharedCrawlArchive, _ membership: CrawlMembership, worker: WorkerOptions)
        async throws -> ListingPartClaim
    {
        let claim = try await shared.claimListingPart(membership, lease: worker.lease)
        guard case .part(let part, let readers, _) = claim else { return claim }
        var lists: [ReaderListing] = []
        try await forEachListing(of: readers.map(Optional.some), createdUpTo: membership.startedAt) { listing in
            let reader = listing.reader ?? 0
            switch listing.result {
            case .success(let dialogs):
                lists.append(
                    ReaderListing(reader: reader, dialogs: try dialogs.map { try JSONValue(parsing: $0.json) }))
            case .failure(let error):
                lists.append(ReaderListing(reader: reader, dialogs: [], failure: error.localizedDescription))
            }
        }
        try await shared.finishListingPart(membership, part: part, lists: lists)
        events(.listingPart(part: part, users: readers.count))
        return claim
    }

    /// Users per listing part: a few rounds of `concurrency` lists, so parts spread over the workers and a
    /// claim's round trip stays small beside the lists' requests.
    static func listingPartSize(_ concurrency: Int) -> Int { max(4, 4 * max(1, concurrency)) }
}

extension Crawl.Listing {
    /// A list another worker read, as the merge takes it.
    init(_ stored: ReaderListing) {
        if let failure = stored.failure {
            self.init(reader: stored.reader, result: .failure(StoredListingFailure(reason: failure)))
            return
        }
        do {
            let dialogs = try stored.dialogs.map { try Entry(raw: $0) }
            self.init(reader: stored.reader, result: .success(dialogs))
        } catch {
            self.init(reader: stored.reader, result: .failure(error))
        }
    }
}

/// A user's dialog list that the worker which read it could not read, as that worker said why.
struct StoredListingFailure: Error, LocalizedError {
    var reason: String
    var errorDescription: String? { reason }
}
