import ArchiveTestSupport
import Foundation
import QueryLanguage
import Stats
import Testing

@testable import Service

/// The service's stats cache answers a query with relative dates for the window as it is when asked: keyed by
/// the query's text, `date > 10d` was answered with the window of its first request until the next crawl.
@Suite("Stats cache: relative windows move with the clock")
struct StatsCacheTests {
    @Test(arguments: ["date > 10d", "after:10d", "date >= 1w or is:edited", "before:5d"])
    func aRelativeWindowIsComputedForWhenItIsAsked(text: String) async throws {
        let corpus = try await SearchCorpus.make(seed: 31, count: 400)
        defer { corpus.remove() }
        let cache = StatsCache()
        var totals: [Int] = []
        for days in [0, 7, 14, 0] {
            let now = SearchCorpus.baseTime + days * 86_400
            let query = try QueryParser(now: now).parse(text)
            let cached = try await cache.report(archive: corpus.archive, options: StatsOptions(query: query))
            let fresh = try await StatsReport.compute(archive: corpus.archive, options: StatsOptions(query: query))
            #expect(cached.totals.messages == fresh.totals.messages, "\(text) at +\(days)d")
            totals.append(cached.totals.messages)
        }
        #expect(Set(totals).count > 1, "the windows hold different messages: \(totals)")
        #expect(totals.first == totals.last)
    }
}
