import Archive
import Foundation
import Hummingbird
import QuickBlox
import Stats

extension ArchiveService {
    struct DashboardView {
        struct Figure {
            var label: String
            var value: String
        }
        struct Run {
            var id: Int64
            var started: String
            var status: String
            var failed: Bool
            var messages: String
        }
        struct Chart {
            var name: String
            var svg: String
        }
        var figures: [Figure]
        var runs: [Run]
        var charts: [Chart]
        var hasCharts: Bool
    }

    /// `/dashboard`: archive totals, recent crawl runs and the stats charts.
    func dashboardPage(_ request: Request, context: ServiceContext) async throws -> Response {
        let runs = try await archive.runs(limit: 10)
        let period = try await Self.period(forMessages: archive.messageCountEstimate())
        let report = try await stats.report(archive: archive, options: StatsOptions(period: period, top: 10))
        let totals = report.totals
        let figures = [
            ("messages", totals.messages), ("dialogs", totals.dialogs.total), ("users", totals.users),
            ("edits", totals.edits), ("deleted messages", totals.deletedMessages),
            ("deleted dialogs", totals.dialogs.deleted),
        ].map { DashboardView.Figure(label: $0.0, value: $0.1.formatted()) }
        try await audit.record("view", by: context, via: "web", ["page": "dashboard"])
        let charts = StatsChart.all(report).map { DashboardView.Chart(name: $0.name, svg: $0.svg) }
        let reply = report.firstReply
        let extra = [
            ("first reply, median", reply.medianSeconds.map(Self.duration) ?? "—"),
            ("first reply, p90", reply.p90Seconds.map(Self.duration) ?? "—"),
        ].map { DashboardView.Figure(label: $0.0, value: $0.1) }
        var view = DashboardView(
            figures: figures,
            runs: runs.map {
                DashboardView.Run(
                    id: $0.id, started: DisplayTime.format($0.startedAt), status: $0.status.rawValue,
                    failed: $0.status != .complete && $0.status != .running,
                    messages:
                        "\($0.counts.newMessages) new, \($0.counts.editedMessages) edited, \($0.counts.deletedMessages) deleted"
                )
            }, charts: charts, hasCharts: !charts.isEmpty)
        view.figures += extra
        return pages.page("dashboard", title: "Dashboard", view: view, section: "/dashboard", actor: context.actor)
    }

    /// Day buckets for a small archive, weeks or months as it grows, so the volume chart stays readable.
    static func period(forMessages messages: Int) -> StatsPeriod {
        messages > 200_000 ? .month : messages > 20_000 ? .week : .day
    }

    /// `95 s`, `12 min`, `3.5 h`, `2.1 d`.
    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: String(format: "%.1f h", Double(seconds) / 3600)
        default: String(format: "%.1f d", Double(seconds) / 86400)
        }
    }
}
