import QueryLanguage

/// What ``StatsReport/compute(archive:options:)`` covers.
public struct StatsOptions: Sendable {
    /// Only messages matching this query count (`nil`: the whole archive); it restricts every figure.
    public var query: Query?
    /// The length of the volume buckets.
    public var period: StatsPeriod
    /// How many top senders and top dialogs to list.
    public var top: Int
    /// Whether a whole-archive report may read the statistics roll-ups (`false`: every message is read, as
    /// `qbarchive stats --from-messages` asks; the figures are the same).
    public var readsRollups = true

    public init(query: Query? = nil, period: StatsPeriod = .day, top: Int = 10) {
        self.query = query
        self.period = period
        self.top = top
    }
}
