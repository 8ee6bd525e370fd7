import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Words beside other conditions (`invoice dialog_type:private`, `refund -from:user2`, `(invoice OR refund)
/// -from:user2`): on SQLite a page of
/// frequent words walks the date index down to a boundary before it fetches every hit (`walkBoundary`), and a
/// page with its total may be collected in one pass over the hits (`collectedPage`); pages at offsets and after
/// keyset cursors, in both orders, and their totals must be the reference's whichever way they were read.
@Suite("Search differential, words beside other conditions")
struct WordsBesideConditionsTests {
    @Test(arguments: TestBackend.all, [13, 14] as [UInt64])
    func pagesOfWordsBesideOtherConditionsAreTheReferences(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 7_717)
        var generator = QueryGenerator(corpus: corpus)
        var walked = 0
        var walkedGroups = 0
        var found = 0
        for _ in 0..<100 {
            let expression = generator.wordsBesideConditions(&random)
            let query = Query(source: "", root: expression)
            let matches = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                .sorted { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }
            for sort in [SearchOptions.Sort.newest, .oldest] {
                let expected = sort == .oldest ? matches : matches.reversed()
                var options = SearchOptions(
                    limit: 1 + Int(random.next() % 4), offset: Int(random.next() % 4), sort: sort)
                let page = try await corpus.archive.searchPage(query, options: options, zone: .gmt)
                let context = "\(sort) limit \(options.limit) offset \(options.offset) \(expression)"
                #expect(
                    page.hits.map(\.message.id)
                        == Array(expected.dropFirst(options.offset).prefix(options.limit)).map(\.id), "\(context)")
                #expect(page.total == expected.count, "\(context)")
                // Without the total, as `search` reads a page.
                let plain = try await corpus.archive.search(query, options: options)
                #expect(plain.map(\.message.id) == page.hits.map(\.message.id), "\(context)")
                let plan = try await corpus.archive.explain(query, options: options, zone: .gmt)
                if plan.sql.contains("INDEXED BY messages_by_date") {
                    walked += 1
                    if expression.hasOnlyGroupsOfWords { walkedGroups += 1 }
                }
                if expected.count > options.offset + options.limit { found += 1 }
                // After a keyset cursor: the matches after it, the same total.
                guard !expected.isEmpty else { continue }
                let last = expected[Int(random.next() % UInt64(expected.count))]
                options.offset = 0
                options.after = SearchCursor(dateSent: last.dateSent, messageID: last.id)
                let next = try await corpus.archive.searchPage(query, options: options, zone: .gmt)
                let rest = expected.drop { $0.id != last.id }.dropFirst().prefix(options.limit).map(\.id)
                #expect(next.hits.map(\.message.id) == Array(rest), "after \(last.id) \(context)")
                #expect(next.total == expected.count, "after \(last.id) \(context)")
            }
        }
        #expect(found > 40)
        // The walk must be taken often enough to be tested (SQLite only: PostgreSQL's planner walks by itself).
        if backend.name == "SQLite" {
            #expect(walked > 20, "\(walked) pages walked")
            #expect(walkedGroups > 5, "\(walkedGroups) pages of a group of words walked")
        }
    }
}

extension QueryGenerator {
    /// One or two words, phrases or prefixes — or `or`s of two — beside one or two other conditions (some
    /// negated) under one `and`.
    mutating func wordsBesideConditions(_ random: inout SeededRandom) -> QueryExpression {
        var children: [QueryExpression] = (0..<1 + Int(random.next() % 2)).map { _ in
            random.next() % 3 == 0
                ? .or([.text(textTerm(&random)), .text(textTerm(&random))]) : .text(textTerm(&random))
        }
        for _ in 0..<1 + Int(random.next() % 2) {
            let condition = QueryExpression.predicate(predicate(&random))
            children.insert(
                random.next() % 3 == 0 ? .not(condition) : condition,
                at: Int(random.next() % UInt64(children.count + 1)))
        }
        return .and(children)
    }
}

extension QueryExpression {
    /// Whether an `and`'s only words are `or`s of words (groups the word index answers alone): the words a walk
    /// of its page starts from are those groups'.
    fileprivate var hasOnlyGroupsOfWords: Bool {
        guard case .and(let children) = self else { return false }
        var groups = 0
        for child in children {
            switch child {
            case .text: return false
            case .or(let branches) where branches.allSatisfy({ if case .text = $0 { true } else { false } }):
                groups += 1
            default: continue
            }
        }
        return groups > 0
    }
}
