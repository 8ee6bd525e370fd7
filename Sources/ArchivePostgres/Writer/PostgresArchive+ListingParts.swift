import Archive
import Foundation
import PostgresNIO
import QuickBlox

/// The users' dialog lists of an app-scope crawl, shared by its workers (migration `v3-listing-parts`): one
/// `crawl_listing_parts` row per few users, claimed like a dialog lease.
extension PostgresArchive {
    public func publishListingParts(_ membership: CrawlMembership, readers: [Int], partSize: Int) async throws {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            // Taken over from a lister that stopped after publishing: the parts stand (some may be listed).
            let published = try await connection.single(
                Int64.self, "SELECT count(*) FROM crawl_listing_parts WHERE run_id = \(membership.runID)")
            guard published == 0 else { return }
            let size = max(1, partSize)
            var parts: [Int64] = []
            var lists: [String] = []
            for (index, start) in stride(from: 0, to: readers.count, by: size).enumerated() {
                let chunk = readers[start..<min(start + size, readers.count)]
                parts.append(Int64(index))
                lists.append(JSONValue.array(chunk.map { .int($0) }).jsonString)
            }
            try await connection.run(
                """
                INSERT INTO crawl_listing_parts (run_id, part, readers)
                SELECT \(membership.runID), part, readers FROM unnest(\(parts)::bigint[], \(lists)::text[])
                    AS t (part, readers)
                """)
        }
    }

    public func listingReaders(_ membership: CrawlMembership) async throws -> [Int]? {
        let rows = try await client.query(
            "SELECT readers FROM crawl_listing_parts WHERE run_id = \(membership.runID) ORDER BY part",
            logger: Self.silent)
        var readers: [Int] = []
        var published = false
        for try await text in rows.decode(String.self) {
            published = true
            readers.append(contentsOf: Self.readers(text))
        }
        return published ? readers : nil
    }

    public func claimListingPart(_ membership: CrawlMembership, lease: Int) async throws -> ListingPartClaim {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            let now = try await connection.serverNow()
            // One row, chosen once (see claimDialog for why the CTE is materialized).
            let rows = try await connection.query(
                """
                WITH next AS MATERIALIZED (
                    SELECT part, worker_id FROM crawl_listing_parts
                    WHERE run_id = \(membership.runID) AND done_at IS NULL
                        AND (worker_id IS NULL OR expires_at < \(now))
                    ORDER BY part LIMIT 1 FOR UPDATE SKIP LOCKED)
                UPDATE crawl_listing_parts p SET worker_id = \(membership.workerID),
                    expires_at = \(now + Int64(lease)), claims = p.claims + 1
                FROM next
                WHERE p.run_id = \(membership.runID) AND p.part = next.part
                RETURNING p.part, p.readers, next.worker_id IS NOT NULL
                """, logger: Self.silent)
            var claimed: [ListingPartClaim] = []
            for try await (part, readers, takenOver) in rows.decode((Int64, String, Bool).self) {
                claimed.append(.part(Int(part), readers: Self.readers(readers), takenOver: takenOver))
            }
            guard claimed.count <= 1 else { throw SharedCrawlError.claimedMoreThanOne(claimed.count) }
            if let claim = claimed.first { return claim }
            let (parts, open) = try await connection.pair(
                """
                SELECT count(*), count(*) FILTER (WHERE done_at IS NULL) FROM crawl_listing_parts
                WHERE run_id = \(membership.runID)
                """)
            if parts == 0 { return .notPublished }
            return open == 0 ? .listed : .wait
        }
    }

    public func finishListingPart(_ membership: CrawlMembership, part: Int, lists: [ReaderListing]) async throws {
        let json = JSONValue.array(
            lists.map { list in
                var object: [String: JSONValue] = ["reader": .int(list.reader), "dialogs": .array(list.dialogs)]
                if let failure = list.failure { object["failure"] = .string(failure) }
                return .object(object)
            })
        try await changes(
            """
            UPDATE crawl_listing_parts SET lists = \(json.jsonString), done_at = qbarchive_now(), expires_at = NULL
            WHERE run_id = \(membership.runID) AND part = \(Int64(part)) AND worker_id = \(membership.workerID)
                AND done_at IS NULL
            RETURNING part
            """)
    }

    public func forEachListedPart(_ membership: CrawlMembership, _ body: ([ReaderListing]) async throws -> Void)
        async throws
    {
        // One part at a time: the lists of every user of a large application need not be in memory at once.
        var after: Int64 = -1
        while true {
            let rows = try await client.query(
                """
                SELECT part, lists FROM crawl_listing_parts
                WHERE run_id = \(membership.runID) AND part > \(after) AND done_at IS NOT NULL
                ORDER BY part LIMIT 1
                """, logger: Self.silent)
            var next: (Int64, String)?
            for try await row in rows.decode((Int64, String).self) { next = row }
            guard let (part, text) = next else { return }
            after = part
            let lists = try JSONValue(parsing: Array(text.utf8)).arrayValue ?? []
            try await body(
                lists.map { list in
                    ReaderListing(
                        reader: list["reader"]?.lenientInt ?? 0, dialogs: list["dialogs"]?.arrayValue ?? [],
                        failure: list["failure"]?.stringValue)
                })
        }
    }

    /// A part's readers, from their JSON array.
    static func readers(_ text: String) -> [Int] {
        ((try? JSONValue(parsing: Array(text.utf8)))?.arrayValue ?? []).compactMap(\.lenientInt)
    }
}

extension PostgresConnection {
    /// The two counts a statement returns.
    func pair(_ query: PostgresQuery) async throws -> (Int64, Int64) {
        for try await row in try await self.query(query, logger: PostgresArchive.silent).decode((Int64, Int64).self) {
            return row
        }
        throw PostgresWriterError.noRowReturned
    }
}
