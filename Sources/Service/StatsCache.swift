import Archive
import QueryLanguage
import Stats

/// Keeps computed stats reports until the archive changes: aggregating a million messages takes
/// seconds, and the dashboard is loaded far more often than a crawl runs.
///
/// The key is the archive's change marker (``Archive/ArchiveReader/changeMarker()``: the largest rowids and the latest
/// crawl run, read in constant time), which any change to the archived data moves, and the query as parsed: its
/// relative dates (`date > 3m`, `today`) resolved to instants when the request came, so a window that moved with
/// the clock is computed again (keyed by its text, a report for `date > 3m` was served long after it was true).
actor StatsCache {
    private struct Key: Hashable {
        var marker: String
        var query: QueryExpression?
        var period: StatsPeriod
        var top: Int
    }

    private var reports: [Key: StatsReport] = [:]

    func report(archive: any ArchiveReader, options: StatsOptions) async throws -> StatsReport {
        let key = Key(
            marker: try await archive.changeMarker(), query: options.query?.root, period: options.period,
            top: options.top)
        if let report = reports[key] { return report }
        let report = try await StatsReport.compute(archive: archive, options: options)
        if reports.count > 32 { reports.removeAll() }
        reports[key] = report
        return report
    }
}
