/// SVG charts of a ``StatsReport``: self-contained strings to write as files or inline into HTML.
///
/// Drawn by hand (see ``SVGDocument``): no chart library is among the project's packages. Each chart
/// has a `<title>`, a `viewBox` with `width` and `height`, and class names (`qbarchive-chart`,
/// `qbarchive-chart-NAME`, `bar`, `label`, ...) for a page to style; every label is XML-escaped.
public enum StatsChart {
    static let accent = "#2563eb"
    static let muted = "#dc2626"

    /// Every chart, named as its file: `volume.svg`, `hour-of-week.svg`, `daily-active.svg`,
    /// `top-senders.svg`, `top-dialogs.svg`.
    public static func all(_ report: StatsReport) -> [(name: String, svg: String)] {
        [
            ("volume.svg", volume(report)),
            ("hour-of-week.svg", hourOfWeek(report)),
            ("daily-active.svg", dailyActive(report)),
            (
                "top-senders.svg",
                leaders(
                    name: "top-senders", title: "Top senders",
                    rows: report.topSenders.map { ($0.label, $0.messages) })
            ),
            (
                "top-dialogs.svg",
                leaders(
                    name: "top-dialogs", title: "Top dialogs",
                    rows: report.topDialogs.map { ($0.label, $0.messages) })
            ),
        ]
    }

    /// Messages per period as columns, the deleted part of each in red.
    public static func volume(_ report: StatsReport) -> String {
        let buckets = report.volume
        var svg = SVGDocument(width: 800, height: 300)
        let title = "Messages per \(report.period.rawValue) (UTC)"
        svg.text(title, x: 16, y: 22, className: "heading", size: 14, weight: "600")
        let plot = (x: 56.0, y: 40.0, width: 728.0, height: 220.0)
        let peak = max(1, buckets.map(\.messages).max() ?? 1)
        axis(&svg, plot: plot, peak: peak)
        let step = plot.width / Double(max(1, buckets.count))
        let labelEvery = max(1, Int((Double(buckets.count) / 8).rounded(.up)))
        for (index, bucket) in buckets.enumerated() {
            let x = plot.x + Double(index) * step
            let height = plot.height * Double(bucket.messages) / Double(peak)
            let deleted = plot.height * Double(bucket.deleted) / Double(peak)
            let width = max(0.5, step * 0.8)
            svg.rect(
                x: x, y: plot.y + plot.height - height, width: width, height: height, fill: accent, className: "bar",
                tooltip:
                    "\(bucket.label): \(bucket.messages) messages, \(bucket.deleted) deleted, \(bucket.senders) senders"
            )
            if bucket.deleted > 0 {
                svg.rect(
                    x: x, y: plot.y + plot.height - deleted, width: width, height: deleted, fill: muted,
                    className: "bar deleted")
            }
            if index % labelEvery == 0 {
                svg.text(bucket.label, x: x, y: plot.y + plot.height + 16, className: "label", size: 10)
            }
        }
        if buckets.isEmpty { svg.text("no messages", x: 400, y: 150, className: "empty", anchor: "middle") }
        return svg.render(name: "volume", title: title)
    }

    /// A 7 × 24 heat map of messages per weekday and hour (UTC), Monday at the top.
    public static func hourOfWeek(_ report: StatsReport) -> String {
        var svg = SVGDocument(width: 800, height: 250)
        let title = "Messages by hour of week (UTC)"
        svg.text(title, x: 16, y: 22, className: "heading", size: 14, weight: "600")
        let peak = max(1, report.hourOfWeek.flatMap { $0 }.max() ?? 1)
        let cell = (width: 30.0, height: 24.0)
        let origin = (x: 56.0, y: 48.0)
        for hour in stride(from: 0, to: 24, by: 3) {
            svg.text(
                String(hour), x: origin.x + Double(hour) * cell.width + 2, y: origin.y - 6, className: "label", size: 10
            )
        }
        for (day, name) in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].enumerated() {
            let y = origin.y + Double(day) * cell.height
            svg.text(name, x: origin.x - 8, y: y + 16, className: "label", anchor: "end")
            for hour in 0..<24 {
                let count = report.hourOfWeek[safe: day]?[safe: hour] ?? 0
                svg.rect(
                    x: origin.x + Double(hour) * cell.width, y: y, width: cell.width - 2, height: cell.height - 2,
                    fill: count == 0 ? "#f3f4f6" : accent, className: "cell",
                    opacity: count == 0 ? nil : 0.1 + 0.9 * Double(count) / Double(peak),
                    tooltip: "\(name) \(hour):00–\(hour + 1):00 UTC: \(count) messages")
            }
        }
        return svg.render(name: "hour-of-week", title: title)
    }

    /// Distinct senders per UTC day as a line.
    public static func dailyActive(_ report: StatsReport) -> String {
        let days = report.dailyActiveSenders
        var svg = SVGDocument(width: 800, height: 300)
        let title = "Daily active senders (UTC)"
        svg.text(title, x: 16, y: 22, className: "heading", size: 14, weight: "600")
        let plot = (x: 56.0, y: 40.0, width: 728.0, height: 220.0)
        let peak = max(1, days.map(\.senders).max() ?? 1)
        axis(&svg, plot: plot, peak: peak)
        let step = plot.width / Double(max(1, days.count - 1))
        let points = days.enumerated().map { index, day in
            (plot.x + Double(index) * step, plot.y + plot.height - plot.height * Double(day.senders) / Double(peak))
        }
        if points.count > 1 {
            svg.polyline(points, className: "line", stroke: accent)
        } else if let point = points.first {
            svg.rect(x: point.0 - 2, y: point.1 - 2, width: 4, height: 4, fill: accent, className: "point")
        }
        let labelEvery = max(1, Int((Double(days.count) / 8).rounded(.up)))
        for (index, day) in days.enumerated() where index % labelEvery == 0 {
            svg.text(
                day.date, x: plot.x + Double(index) * step, y: plot.y + plot.height + 16, className: "label", size: 10)
        }
        if days.isEmpty { svg.text("no messages", x: 400, y: 150, className: "empty", anchor: "middle") }
        return svg.render(name: "daily-active", title: title)
    }

    /// Horizontal bars with a name and a count each.
    static func leaders(name: String, title: String, rows: [(String, Int)]) -> String {
        let rowHeight = 26.0
        var svg = SVGDocument(width: 800, height: 48 + Int(rowHeight) * max(1, rows.count))
        svg.text(title, x: 16, y: 22, className: "heading", size: 14, weight: "600")
        let peak = max(1, rows.map(\.1).max() ?? 1)
        for (index, row) in rows.enumerated() {
            let y = 36 + Double(index) * rowHeight
            let label = row.0.count > 40 ? String(row.0.prefix(39)) + "…" : row.0
            svg.text(label, x: 256, y: y + 16, className: "label", anchor: "end", size: 12)
            let width = 440 * Double(row.1) / Double(peak)
            svg.rect(
                x: 264, y: y + 3, width: width, height: rowHeight - 8, fill: accent, className: "bar",
                tooltip: "\(row.0): \(row.1) messages")
            svg.text(String(row.1), x: 270 + width, y: y + 16, className: "value", size: 11)
        }
        if rows.isEmpty { svg.text("no messages", x: 400, y: 56, className: "empty", anchor: "middle") }
        return svg.render(name: name, title: title)
    }

    /// The baseline and the peak's gridline with its value.
    private static func axis(
        _ svg: inout SVGDocument, plot: (x: Double, y: Double, width: Double, height: Double), peak: Int
    ) {
        svg.line(
            x1: plot.x, y1: plot.y + plot.height, x2: plot.x + plot.width, y2: plot.y + plot.height, className: "axis")
        svg.line(x1: plot.x, y1: plot.y, x2: plot.x + plot.width, y2: plot.y, className: "grid")
        svg.text(String(peak), x: plot.x - 6, y: plot.y + 4, className: "label", anchor: "end", size: 10)
        svg.text("0", x: plot.x - 6, y: plot.y + plot.height + 4, className: "label", anchor: "end", size: 10)
    }
}
