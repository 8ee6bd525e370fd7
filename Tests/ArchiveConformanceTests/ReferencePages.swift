import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Random queries of one shape on a random corpus, each expected to have the reference evaluator's total and
/// pages: the shared body of the differential suites that check a way of counting (``MixedOrSearchTests``,
/// ``NegatedFullTextSearchTests``).
struct ReferencePages {
    var corpus: SearchCorpus
    var random: SeededRandom
    var generator: QueryGenerator
    /// Also read a page after a keyset cursor (a random match) and expect the matches after it.
    var keysetPages = false

    init(corpus: SearchCorpus, seed: UInt64, keysetPages: Bool = false) {
        self.corpus = corpus
        self.random = SeededRandom(seed: seed)
        self.generator = QueryGenerator(corpus: corpus)
        self.keysetPages = keysetPages
    }

    /// Runs `rounds` queries that `shape` makes; returns how many matched some messages but not all (a suite
    /// expects many, or the comparison proves little).
    mutating func expectTheReferences(
        rounds: Int, _ shape: (inout QueryGenerator, inout SeededRandom) -> QueryExpression
    ) async throws -> Int {
        let reference = ReferenceEvaluator(users: corpus.users)
        var partial = 0
        for _ in 0..<rounds {
            let expression = shape(&generator, &random)
            let query = Query(source: "", root: expression)
            let expected = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                .sorted { ($0.dateSent, $0.id) > ($1.dateSent, $1.id) }
            #expect(try await corpus.archive.count(query) == expected.count, "\(expression)")
            var options = SearchOptions(limit: 1 + Int(random.next() % 5), offset: Int(random.next() % 3))
            let page = try await corpus.archive.searchPage(query, options: options, zone: .gmt)
            let context = "limit \(options.limit) offset \(options.offset) \(expression)"
            #expect(page.total == expected.count, "\(context)")
            #expect(
                page.hits.map(\.message.id)
                    == Array(expected.dropFirst(options.offset).prefix(options.limit)).map(\.id), "\(context)")
            if expected.count > 0, expected.count < corpus.entries.count { partial += 1 }
            guard keysetPages, let last = expected.dropLast().randomElement(using: &random) else { continue }
            options.offset = 0
            options.after = SearchCursor(dateSent: last.dateSent, messageID: last.id)
            let next = try await corpus.archive.searchPage(query, options: options, zone: .gmt)
            let rest = expected.drop { $0.id != last.id }.dropFirst().prefix(options.limit).map(\.id)
            #expect(next.hits.map(\.message.id) == Array(rest), "after \(last.id) \(context)")
            #expect(next.total == expected.count, "after \(last.id) \(context)")
        }
        return partial
    }
}
