import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// An `or` of full-text branches and others (`invoice OR from:user101`, `"see you" OR -is:edited`): its total is
/// counted as the `UNION` of the word or substring index's keys and the keys the other branches select
/// (`keysOfMixedOr`) — on SQLite always, on PostgreSQL when the planner expects the other branches to select few
/// messages. Totals, pages and keyset pages must be the reference's either way, whatever the other branches
/// are: indexed columns, absent fields (`NULL`), negations, words beside conditions.
@Suite("Search differential, an or of words and other conditions")
struct MixedOrSearchTests {
    @Test(arguments: TestBackend.all, [21, 22, 23] as [UInt64])
    func totalsAndPagesOfAnOrOfWordsAndConditionsAreTheReferences(backend: TestBackend, seed: UInt64)
        async throws
    {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        var pages = ReferencePages(corpus: corpus, seed: seed * 6_271, keysetPages: true)
        // Some messages but not all: neither the full-text branches alone nor the others alone.
        let partial = try await pages.expectTheReferences(rounds: 120) { $0.mixedOr(&$1) }
        #expect(partial > 60, "\(partial) queries matched some messages but not all")
    }
}

extension QueryGenerator {
    /// An `or` of one or two full-text branches (words, phrases, prefixes, `message ctn`, and trees of them) and
    /// one or two others: a column condition, a negated one, or a word beside a condition — in any order.
    mutating func mixedOr(_ random: inout SeededRandom) -> QueryExpression {
        var children: [QueryExpression] = (0..<1 + Int(random.next() % 2)).map { _ in
            random.next() % 3 == 0 ? fullTextExpression(depth: 1, &random) : .text(textTerm(&random))
        }
        for _ in 0..<1 + Int(random.next() % 2) {
            let condition = QueryExpression.predicate(predicate(&random))
            let other: QueryExpression
            switch random.next() % 4 {
            case 0: other = .not(condition)
            case 1: other = .and([.text(textTerm(&random)), condition])
            default: other = condition
            }
            children.insert(other, at: Int(random.next() % UInt64(children.count + 1)))
        }
        return .or(children)
    }
}
