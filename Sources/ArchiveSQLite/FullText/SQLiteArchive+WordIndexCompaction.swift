import GRDB

extension SQLiteArchive {
    /// Merges the word index into one segment when a bulk change (a crawl, an import, an erasure, a retention run) left
    /// it cut into several of comparable size (``wordIndexNeedsCompaction(leaves:)``); returns whether it did.
    ///
    /// FTS5 writes each transaction's terms as a new segment and merges segments four at a time
    /// (`automerge`), so a crawl leaves a dozen or more — 13 at a million messages, 20 at five million — each
    /// spanning every date, because every dialog does. A query reads a word's list of messages from each
    /// segment and merges them in key order, comparing keys at every step: counting `invoice`'s 124,523
    /// messages took 12.2 ms in those 20 segments and 8.3 ms in one (`sqlite3`, the same archive before and
    /// after FTS5's `optimize`), so a search's total cost half as much again as it needs to
    /// (docs/performance/scaling.md). The merge rewrites the whole index (13 s at five million messages, 2.7 s
    /// at one million), so it runs only once the segments besides the largest hold a tenth of its leaves: after
    /// a first crawl or an import, then after about every tenth of growth, not after every small nightly crawl.
    ///
    /// The substring index is left to FTS5's own merging: merged the same way, its searches measured no faster
    /// (a substring query's cost is in testing each candidate's text, not in its lists).
    @discardableResult
    public func compactWordIndexIfFragmented() async throws -> Bool {
        try await pool.write { db in
            guard Self.wordIndexNeedsCompaction(leaves: try Self.wordIndexLeaves(db)) else { return false }
            try db.execute(sql: "INSERT INTO message_words (message_words) VALUES ('optimize')")
            return true
        }
    }

    /// About how many leaf pages each segment of the word index holds, read from FTS5's `_idx` table (a few
    /// thousand rows at five million messages): one row per leaf a term starts on, with `pgno` the leaf's
    /// number shifted left by one (FTS5's file format), so a segment's largest is about its leaf count.
    static func wordIndexLeaves(_ db: Database) throws -> [Int] {
        try Int.fetchAll(db, sql: "SELECT MAX(pgno >> 1) FROM message_words_idx GROUP BY segid")
    }

    /// Whether segments of these sizes (in leaves) are worth merging into one: when those besides the largest
    /// hold at least a tenth of all the leaves. A single segment, or a large one beside a few small ones, is
    /// left alone: merging rewrites every leaf, and the small ones add few steps to a query (1,200 entries of
    /// `invoice` in eight small segments beside one of 24,904 counted in about the same time).
    static func wordIndexNeedsCompaction(leaves: [Int]) -> Bool {
        guard leaves.count > 1, let largest = leaves.max() else { return false }
        let total = leaves.reduce(0, +)
        return (total - largest) * 10 >= total
    }
}
