/// How ``SQLiteArchive/search(_:options:)`` pages and orders its results.
public struct SearchOptions: Sendable, Hashable {
    /// The order of the results.
    public enum Sort: String, Sendable, Hashable, CaseIterable {
        /// Newest first (`-date`), the default: cheap on any number of hits.
        case newest = "-date"
        /// Oldest first (`date`), the order of a transcript.
        case oldest = "date"
        /// Best full-text match first (bm25 over the query's words), then newest. Ranking scores every
        /// hit before the limit applies, so it is slow on very common words; without words it is `-date`.
        case rank
    }

    public var limit: Int
    public var offset: Int
    public var sort: Sort

    public init(limit: Int = 50, offset: Int = 0, sort: Sort = .newest) {
        self.limit = limit
        self.offset = offset
        self.sort = sort
    }
}
