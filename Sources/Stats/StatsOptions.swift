import QueryLanguage

/// What ``StatsReport/compute(archive:options:)`` covers.
public struct StatsOptions: Sendable {
    /// Only messages matching this query count (`nil`: the whole archive); it restricts every figure.
    public var query: Query?
    /// The length of the volume buckets.
    public var period: StatsPeriod
    /// How many top senders and top dialogs to list.
    public var top: Int

    public init(query: Query? = nil, period: StatsPeriod = .day, top: Int = 10) {
        self.query = query
        self.period = period
        self.top = top
    }
}
