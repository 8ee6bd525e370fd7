import ArchiveStore
import Foundation
import Hummingbird
import QuickBlox

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
        let counts = try await archive.counts()
        let runs = try await archive.runs(limit: 10)
        let figures = [
            ("messages", counts.messages), ("dialogs", counts.dialogs), ("users", counts.users),
            ("edited (revisions)", counts.revisions), ("deleted messages", counts.deletedMessages),
            ("deleted dialogs", counts.deletedDialogs),
        ].map { DashboardView.Figure(label: $0.0, value: $0.1.formatted()) }
        let charts = try await dashboardCharts()
        let view = DashboardView(
            figures: figures,
            runs: runs.map {
                DashboardView.Run(
                    id: $0.id, started: DisplayTime.format($0.startedAt), status: $0.status.rawValue,
                    failed: $0.status != .complete && $0.status != .running,
                    messages:
                        "\($0.counts.newMessages) new, \($0.counts.editedMessages) edited, \($0.counts.deletedMessages) deleted"
                )
            }, charts: charts, hasCharts: !charts.isEmpty)
        return pages.page("dashboard", title: "Dashboard", view: view, section: "/dashboard", actor: context.actor)
    }

    func dashboardCharts() async throws -> [DashboardView.Chart] {
        []
    }
}
