import QueryLanguage

/// What ``SQLiteArchive/statistics(_:)`` aggregates: which messages, in which periods, how many leaders.
public struct StatisticsRequest: Sendable, Hashable {
    /// The length of a volume bucket. Every boundary is in UTC.
    public enum Bucket: String, Sendable, Hashable, CaseIterable {
        /// A calendar day, from 00:00 UTC.
        case day
        /// An ISO 8601 week: Monday 00:00 UTC to the next Monday.
        case week
        /// A calendar month, from the 1st at 00:00 UTC.
        case month
    }

    /// Only messages matching this query count (`nil`: every archived message).
    public var query: Query?
    /// The length of the volume buckets.
    public var bucket: Bucket
    /// How many top senders and top dialogs to return.
    public var top: Int
    /// Whether a report may read the statistics roll-ups when they are mostly fresh: a whole-archive report for
    /// every figure, a report with a query for the coverage of its dialogs (which counts each dialog's every
    /// message); `false` reads every message: the reference the tests compare with.
    package var readsRollups = true

    public init(query: Query? = nil, bucket: Bucket = .day, top: Int = 10) {
        self.query = query
        self.bucket = bucket
        self.top = top
    }
}
