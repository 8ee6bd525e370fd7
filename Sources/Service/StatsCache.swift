import Analytics
import ArchiveStore
import QueryLanguage

/// Keeps computed stats reports until the archive changes: aggregating a million messages takes
/// seconds, and the dashboard is loaded far more often than a crawl runs.
///
/// The key is the archive's counts (messages, revisions, deletions, dialogs, users, runs), read in
/// milliseconds; any crawl that changes a figure changes one of them.
actor StatsCache {
    private struct Key: Hashable {
        var counts: ArchiveCounts
        var query: String?
        var period: StatsPeriod
        var top: Int
    }

    private var reports: [Key: StatsReport] = [:]

    func report(archive: Archive, options: StatsOptions) async throws -> StatsReport {
        let key = Key(
            counts: try await archive.counts(), query: options.query?.source, period: options.period, top: options.top)
        if let report = reports[key] { return report }
        let report = try await StatsReport.compute(archive: archive, options: options)
        if reports.count > 32 { reports.removeAll() }
        reports[key] = report
        return report
    }
}
