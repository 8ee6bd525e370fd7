/// How ``ArchiveReader/search(_:options:)`` pages and orders its results.
public struct SearchOptions: Sendable, Hashable {
    /// The order of the results.
    public enum Sort: String, Sendable, Hashable, CaseIterable {
        /// Newest first (`-date`), the default: cheap on any number of hits.
        case newest = "-date"
        /// Oldest first (`date`), the order of a transcript.
        case oldest = "date"
        /// Best full-text match first (bm25 over the query's words; PostgreSQL's `ts_rank`), then newest. Every
        /// hit is scored before the limit applies (only the scores are sorted, then the page's rows read: about
        /// 50 ms for a word in 25,000 of a million messages, more beside other conditions, whose rows are
        /// tested); without words it is `-date`.
        case rank
    }

    public var limit: Int
    public var offset: Int
    public var sort: Sort
    /// For the date orders, the results after this one (keyset paging: what `--all` reads page by page, so a
    /// deep page costs what the first does).
    public var after: SearchCursor?

    public init(limit: Int = 50, offset: Int = 0, sort: Sort = .newest, after: SearchCursor? = nil) {
        self.limit = limit
        self.offset = offset
        self.sort = sort
        self.after = after
    }
}

/// A result of a search in date order, to continue after (``SearchOptions/after``).
public struct SearchCursor: Sendable, Hashable {
    public var dateSent: Int
    public var messageID: String

    public init(dateSent: Int, messageID: String) {
        self.dateSent = dateSent
        self.messageID = messageID
    }
}
