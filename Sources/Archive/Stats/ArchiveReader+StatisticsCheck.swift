extension ArchiveReader {
    /// The figures of the whole-archive statistics that differ when read through the roll-ups and when read
    /// from every message (`users`, `volume`, `topSenders`, …; empty when they agree): `qbarchive check`'s test
    /// of the roll-ups, whose figures `qbarchive stats` and the dashboard show.
    ///
    /// Day buckets (the roll-ups keep days and hours; weeks and months are sums of the same rows) and every
    /// sender and dialog listed, not the top ten. It reads every message once: at a million, about as long as
    /// `qbarchive stats --from-messages` (7 s here).
    public func statisticsRollupDisagreements() async throws -> [String] {
        let rolledUp = StatisticsRequest(bucket: .day, top: Int(Int32.max))
        var fromMessages = rolledUp
        fromMessages.readsRollups = false
        let expected = try await statistics(fromMessages)
        let actual = try await statistics(rolledUp)
        return actual.figuresDiffering(from: expected)
    }
}

extension ArchiveStatistics {
    /// The names of the figures that differ from `other`'s, in the order they are declared.
    public func figuresDiffering(from other: ArchiveStatistics) -> [String] {
        zip(Mirror(reflecting: self).children, Mirror(reflecting: other).children).compactMap { mine, theirs in
            (mine.value as? AnyHashable) == (theirs.value as? AnyHashable) ? nil : mine.label ?? "?"
        }
    }
}
