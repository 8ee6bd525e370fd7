extension ArchiveStatistics {
    /// The names of the figures that differ from `other`'s, in the order they are declared.
    public func figuresDiffering(from other: ArchiveStatistics) -> [String] {
        zip(Mirror(reflecting: self).children, Mirror(reflecting: other).children).compactMap { mine, theirs in
            (mine.value as? AnyHashable) == (theirs.value as? AnyHashable) ? nil : mine.label ?? "?"
        }
    }
}
