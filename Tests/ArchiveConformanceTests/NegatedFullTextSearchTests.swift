import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// A negation of what the full-text indexes answer (`-invoice`, `NOT "see you"`, `-invoice -refund`, `NOT (a OR
/// message ctn "bit")`): its total is counted as the messages less the index's keys (`keysOfComplement`), its
/// page read as before. Totals and pages must be the reference's, messages without text included.
@Suite("Search differential, negated full-text queries")
struct NegatedFullTextSearchTests {
    @Test(arguments: TestBackend.all, [31, 32] as [UInt64])
    func totalsAndPagesOfNegatedFullTextQueriesAreTheReferences(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 3_571)
        var generator = QueryGenerator(corpus: corpus)
        var partial = 0
        for _ in 0..<100 {
            let expression = generator.negatedFullText(&random)
            let query = Query(source: "", root: expression)
            let expected = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                .sorted { ($0.dateSent, $0.id) > ($1.dateSent, $1.id) }
            #expect(try await corpus.archive.count(query) == expected.count, "\(expression)")
            let options = SearchOptions(limit: 1 + Int(random.next() % 5), offset: Int(random.next() % 3))
            let page = try await corpus.archive.searchPage(query, options: options, zone: .gmt)
            let context = "limit \(options.limit) offset \(options.offset) \(expression)"
            #expect(page.total == expected.count, "\(context)")
            #expect(
                page.hits.map(\.message.id)
                    == Array(expected.dropFirst(options.offset).prefix(options.limit)).map(\.id), "\(context)")
            if expected.count > 0, expected.count < corpus.entries.count { partial += 1 }
        }
        #expect(partial > 60, "\(partial) queries matched some messages but not all")
    }
}

extension QueryGenerator {
    /// `not` of a full-text expression, or an `and` of two or three such negations.
    mutating func negatedFullText(_ random: inout SeededRandom) -> QueryExpression {
        let count = 1 + Int(random.next() % 3)
        let negations: [QueryExpression] = (0..<count).map { _ in
            .not(random.next() % 2 == 0 ? .text(textTerm(&random)) : fullTextExpression(depth: 1, &random))
        }
        return count == 1 ? negations[0] : .and(negations)
    }
}
