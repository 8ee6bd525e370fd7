/// The length of a volume bucket in a ``StatsReport``: a UTC day, an ISO week (from Monday) or a month.
public enum StatsPeriod: String, CaseIterable, Sendable, Codable {
    case day, week, month
}
