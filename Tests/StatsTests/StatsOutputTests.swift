import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

@testable import Stats

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite("qbarchive stats: JSON, table and SVG output")
struct StatsOutputTests {
    @Test func jsonIsCanonicalSnakeCaseAndDecodesBack() async throws {
        let fixture = try await StatsFixture.make()
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions(period: .week))
        let text = report.json()
        #expect(text == report.json(), "the same report prints the same bytes")
        let parsed = try JSONValue(parsing: text)
        #expect(parsed.jsonString == text, "keys sorted, compact: the canonical serialization")
        #expect(parsed["period"] == "week")
        #expect(parsed["totals"]?["deleted_messages"] == 1)
        #expect(parsed["first_reply"]?["median_seconds"] == 600)
        #expect(parsed["top_senders"]?.arrayValue?.first?["label"] == "Alice Martin")
        #expect(parsed["query"] == .null)
        #expect(parsed["coverage"]?["entries"]?.arrayValue?.count == 3)
        let keys = text.ranges(of: "\"coverage\"").first.map { text.distance(from: text.startIndex, to: $0.lowerBound) }
        let totals = text.ranges(of: "\"totals\"").first.map { text.distance(from: text.startIndex, to: $0.lowerBound) }
        #expect((keys ?? 0) < (totals ?? 0), "coverage before totals: sorted, not declaration order")

        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(StatsReport.self, from: Data(text.utf8)) == report)
    }

    @Test func tableShowsEveryFigureWithNamesAndNoControlCharacters() async throws {
        let fixture = try await StatsFixture.make()
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions())
        let table = report.table()
        for expected in [
            "TOTALS", "messages", "11", "deleted 1", "edited 1 (2 edits)", "image 2 · file 1", "2024-03-04",
            "Alice Martin", "@alice", "Alice Martin & Bob Stone", "median 10m 00s · p90 8d 00h over 4 replies",
            "2 complete", "1 not reconciled", "Mon", "Sun",
        ] {
            #expect(table.contains(expected), "missing \(expected)")
        }
        #expect(StatsReport.clean("a\u{1B}[31mred\nline") == "a?[31mred line")
    }

    @Test func chartsAreWellFormedSelfContainedAndEscapeNames() async throws {
        let fixture = try await StatsFixture.make()
        defer { fixture.remove() }
        let report = try await StatsReport.compute(archive: fixture.archive, options: StatsOptions())
        let charts = StatsChart.all(report)
        #expect(
            charts.map(\.name) == [
                "volume.svg", "hour-of-week.svg", "daily-active.svg", "top-senders.svg", "top-dialogs.svg",
            ])
        for chart in charts {
            let parser = XMLParser(data: Data(chart.svg.utf8))
            #expect(parser.parse(), "\(chart.name): \(parser.parserError.map(String.init(describing:)) ?? "")")
            #expect(chart.svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""), "no XML prolog: embeddable")
            #expect(
                chart.svg.contains("viewBox=\"0 0 ") && chart.svg.contains(" width=\"") && chart.svg.contains("<title>")
            )
            #expect(chart.svg.contains("class=\"qbarchive-chart"))
            #expect(!chart.svg.contains("<script") && !chart.svg.contains("<style") && !chart.svg.contains("href"))
        }
        let dialogs = try #require(charts.first { $0.name == "top-dialogs.svg" }).svg
        #expect(dialogs.contains("&lt;script&gt;&amp;&quot;"))
        let senders = try #require(charts.first { $0.name == "top-senders.svg" }).svg
        #expect(senders.contains("Alice Martin"))
    }
}
