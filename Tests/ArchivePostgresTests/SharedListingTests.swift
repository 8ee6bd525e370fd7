import Archive
import ArchivePostgres
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import Testing

/// The users' dialog lists of an app-scope crawl, shared by its workers (migration `v3-listing-parts`): the
/// lister publishes the users in parts, every worker claims parts (each held by one live worker at a time, an
/// expired one taken over, its former holder's word ignored), and the parts come back in the users' order.
@Suite(.postgres, .sharedCluster)
struct SharedListingTests {
    static func lists(_ readers: [Int], by worker: String) -> [ReaderListing] {
        readers.map { reader in
            reader % 7 == 3
                ? ReaderListing(reader: reader, dialogs: [], failure: "HTTP 503 for \(reader)")
                : ReaderListing(reader: reader, dialogs: [["_id": .string("d\(reader)"), "by": .string(worker)]])
        }
    }

    @Test(
        "Parts claimed by several workers: each once, every part listed, merged back in the users' order",
        arguments: [(10, 4), (1, 4), (9, 3), (40, 1)])
    func partsAreSharedAndComeBackInOrder(users: Int, partSize: Int) async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let lister = try await archive.joinCrawl(worker: "lister", scope: "app", lease: 60)
        let helper = try await archive.joinCrawl(worker: "helper", scope: "app", lease: 60)
        #expect(try await archive.claimListing(lister, lease: 60) == .yours)
        #expect(try await archive.claimListingPart(helper, lease: 60) == .notPublished)
        #expect(try await archive.listingReaders(lister) == nil)
        // Users in an order that is not numeric: the parts keep the order given.
        let readers = (0..<users).map { 1000 + ($0 * 37) % 101 }
        try await archive.publishListingParts(lister, readers: readers, partSize: partSize)
        // Published once: a lister that took the claim over publishes nothing new.
        try await archive.publishListingParts(helper, readers: [1, 2, 3], partSize: 1)
        #expect(try await archive.listingReaders(helper) == readers)

        var listedBy: [Int: String] = [:]
        var turn = 0
        while true {
            let (membership, name) = turn % 3 == 2 ? (lister, "lister") : (helper, "helper")
            turn += 1
            let claim = try await archive.claimListingPart(membership, lease: 60)
            guard case .part(let part, let partReaders, let takenOver) = claim else {
                #expect(claim == .listed)
                break
            }
            #expect(!takenOver)
            #expect(listedBy[part] == nil, "part \(part) claimed twice")
            listedBy[part] = name
            #expect(partReaders == Array(readers.dropFirst(part * partSize).prefix(partSize)))
            try await archive.finishListingPart(membership, part: part, lists: Self.lists(partReaders, by: name))
        }
        #expect(listedBy.count == (users + partSize - 1) / partSize)
        var merged: [ReaderListing] = []
        try await archive.forEachListedPart(lister) { merged += $0 }
        #expect(merged.map(\.reader) == readers)
        for list in merged {
            if list.reader % 7 == 3 {
                #expect(list.failure == "HTTP 503 for \(list.reader)" && list.dialogs.isEmpty)
            } else {
                #expect(list.failure == nil && list.dialogs.first?["_id"]?.stringValue == "d\(list.reader)")
            }
        }
        // Publishing the dialogs ends the listing and drops the parts.
        try await archive.publishListing(lister, dialogs: [], users: users, listingsFailed: 0)
        #expect(try await archive.listingReaders(lister) == nil)
    }

    @Test("A part whose worker stopped is taken over after its lease; the former holder's lists are ignored")
    func anExpiredPartIsTakenOver() async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let lister = try await archive.joinCrawl(worker: "lister", scope: "app", lease: 60)
        let slow = try await archive.joinCrawl(worker: "slow", scope: "app", lease: 60)
        _ = try await archive.claimListing(lister, lease: 60)
        try await archive.publishListingParts(lister, readers: [1, 2, 3], partSize: 2)
        #expect(try await archive.claimListingPart(slow, lease: 5) == .part(0, readers: [1, 2], takenOver: false))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .part(1, readers: [3], takenOver: false))
        try await archive.finishListingPart(lister, part: 1, lists: Self.lists([3], by: "lister"))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .wait, "a live worker holds part 0")
        // The lease lasts five seconds on the server's clock (one was too short for the three statements above on
        // a loaded machine: the part had expired before the check that a live worker holds it); then it expires.
        try await Task.sleep(for: .milliseconds(6200))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .part(0, readers: [1, 2], takenOver: true))
        try await archive.finishListingPart(slow, part: 0, lists: Self.lists([1, 2], by: "slow"))
        try await archive.finishListingPart(lister, part: 0, lists: Self.lists([1, 2], by: "lister"))
        #expect(try await archive.claimListingPart(slow, lease: 60) == .listed)
        var merged: [ReaderListing] = []
        try await archive.forEachListedPart(lister) { merged += $0 }
        #expect(merged.map(\.reader) == [1, 2, 3])
        #expect(merged.compactMap { $0.dialogs.first?["by"]?.stringValue } == ["lister", "lister"])
    }

    @Test("A worker that leaves gives its part back at once; a heartbeat keeps a part held")
    func leavingGivesThePartBack() async throws {
        let archive = try await PostgresArchive.open(try await SharedCluster.database())
        defer { Task { await archive.close() } }
        let lister = try await archive.joinCrawl(worker: "lister", scope: "app", lease: 60)
        let leaving = try await archive.joinCrawl(worker: "leaving", scope: "app", lease: 60)
        _ = try await archive.claimListing(lister, lease: 60)
        try await archive.publishListingParts(lister, readers: [5, 6], partSize: 1)
        #expect(try await archive.claimListingPart(leaving, lease: 2) == .part(0, readers: [5], takenOver: false))
        try await archive.heartbeat(leaving, lease: 60)
        try await Task.sleep(for: .milliseconds(3200))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .part(1, readers: [6], takenOver: false))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .wait, "the heartbeat kept part 0 held")
        _ = try await archive.leaveCrawl(leaving, report: SharedCrawlTests.report(.interrupted))
        #expect(try await archive.claimListingPart(lister, lease: 60) == .part(0, readers: [5], takenOver: false))
    }
}
