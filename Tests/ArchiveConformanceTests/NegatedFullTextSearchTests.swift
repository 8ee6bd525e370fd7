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
        var pages = ReferencePages(corpus: corpus, seed: seed * 3_571)
        let partial = try await pages.expectTheReferences(rounds: 100) { $0.negatedFullText(&$1) }
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
