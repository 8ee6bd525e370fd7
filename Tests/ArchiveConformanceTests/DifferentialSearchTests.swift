import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Random archives and random queries: the SQL path and the reference evaluator must agree on every result set.
@Suite("Search differential")
struct DifferentialSearchTests {
    @Test(arguments: TestBackend.all, [1, 2, 3] as [UInt64])
    func sqlAgreesWithTheReferenceEvaluator(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 7919)
        var generator = QueryGenerator(corpus: corpus)
        var nonEmpty = 0
        for _ in 0..<300 {
            let expression = generator.expression(depth: 0, &random)
            let query = Query(source: "", root: expression)
            let expected = Set(corpus.entries.filter { reference.matches(expression, $0) }.map(\.message.id))
            let hits = try await corpus.archive.search(query, options: SearchOptions(limit: 10_000))
            let actual = Set(hits.map(\.message.id))
            #expect(actual == expected, "\(expression)")
            #expect(hits.count == actual.count, "a message listed twice for \(expression)")
            #expect(try await corpus.archive.count(query) == expected.count)
            let dates = hits.map(\.message.dateSent)
            #expect(dates == dates.sorted(by: >), "not newest first")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        // The generator must produce queries that find things, or the comparison proves little.
        #expect(nonEmpty > 100)
    }

    /// Trees of words, phrases, prefixes and `message ctn` only: the queries whose count comes from the
    /// full-text indexes alone and whose pages may come from a walk of the date index.
    @Test(arguments: TestBackend.all, [4, 5] as [UInt64])
    func fullTextQueriesAgreeOnSetsCountsAndPages(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 104_729)
        var generator = QueryGenerator(corpus: corpus)
        var nonEmpty = 0
        for _ in 0..<150 {
            let expression = generator.fullTextExpression(depth: 0, &random)
            let query = Query(source: "", root: expression)
            let expected = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                .sorted { ($0.dateSent, $0.id) > ($1.dateSent, $1.id) }.map(\.id)
            #expect(try await corpus.archive.count(query) == expected.count, "\(expression)")
            let offset = Int(random.next() % 4)
            let page = try await corpus.archive.search(query, options: SearchOptions(limit: 3, offset: offset))
            #expect(page.map(\.message.id) == Array(expected.dropFirst(offset).prefix(3)), "\(expression)")
            if expected.count > 20 { nonEmpty += 1 }
        }
        #expect(nonEmpty > 30)
    }
}

/// Words within periods of `date_sent` (`after:`, `before:`, `on:`): the word index reads them as a range of its
/// date-ordered keys; sets, counts, pages at offsets and keyset pages in both orders must be the reference's.
@Suite("Search differential, words in a period")
struct WordsInPeriodTests {
    @Test(arguments: TestBackend.all, [8, 9] as [UInt64])
    func wordsInAPeriodAgreeOnCountsPagesAndKeysetPages(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 400, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 31_337)
        var generator = QueryGenerator(corpus: corpus)
        var nonEmpty = 0
        for _ in 0..<80 {
            let expression = generator.wordsInPeriod(&random)
            let query = Query(source: "", root: expression)
            let oldest = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                .sorted { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }.map(\.id)
            #expect(try await corpus.archive.count(query) == oldest.count, "\(expression)")
            for sort in [SearchOptions.Sort.newest, .oldest] {
                let expected = sort == .oldest ? oldest : oldest.reversed()
                let offset = Int(random.next() % 4)
                let page = try await corpus.archive.search(
                    query, options: SearchOptions(limit: 3, offset: offset, sort: sort))
                #expect(page.map(\.message.id) == Array(expected.dropFirst(offset).prefix(3)), "\(sort) \(expression)")
                let seen = try await KeysetPagingTests.pages(
                    query, in: corpus, sort: sort, limit: 1 + Int(random.next() % 5), atMost: expected.count)
                #expect(seen == expected, "keyset \(sort) \(expression)")
            }
            if oldest.count > 3 { nonEmpty += 1 }
        }
        #expect(nonEmpty > 15)
    }
}

/// Keyset paging (what `search --all` reads): page after page after the last result, newest and oldest first,
/// the pages together are every match exactly once, in order — for word queries (read from the word index in
/// date order) and any other.
@Suite("Search differential, keyset pages")
struct KeysetPagingTests {
    @Test(arguments: TestBackend.all, [6, 7] as [UInt64])
    func pagesAfterTheLastResultAreEveryMatchInOrder(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(seed: seed, count: 300, backend: backend)
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 65_537)
        var generator = QueryGenerator(corpus: corpus)
        for index in 0..<60 {
            let expression =
                index % 2 == 0
                ? generator.fullTextExpression(depth: 0, &random) : generator.expression(depth: 0, &random)
            let query = Query(source: "", root: expression)
            for sort in [SearchOptions.Sort.newest, .oldest] {
                var expected = corpus.entries.filter { reference.matches(expression, $0) }.map(\.message)
                    .sorted { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }.map(\.id)
                if sort == .newest { expected.reverse() }
                let seen = try await Self.pages(
                    query, in: corpus, sort: sort, limit: 1 + Int(random.next() % 9), atMost: expected.count)
                #expect(seen == expected, "\(sort) \(expression)")
            }
        }
    }

    /// The ids of every page of `query`, each after the last result of the one before, until a short page (or
    /// past `atMost` results: a loop would never end).
    static func pages(_ query: Query, in corpus: SearchCorpus, sort: SearchOptions.Sort, limit: Int, atMost: Int)
        async throws -> [String]
    {
        var seen: [String] = []
        var options = SearchOptions(limit: limit, sort: sort)
        while true {
            let page = try await corpus.archive.search(query, options: options)
            seen += page.map(\.message.id)
            guard page.count == options.limit, let last = page.last, seen.count <= atMost else { return seen }
            options.after = SearchCursor(dateSent: last.message.dateSent, messageID: last.message.id)
        }
    }
}

/// Random query trees over the corpus's values (ids, logins, words, dates, custom keys).
struct QueryGenerator {
    var corpus: SearchCorpus

    mutating func expression(depth: Int, _ random: inout SeededRandom) -> QueryExpression {
        switch random.next() % (depth >= 2 ? 4 : 7) {
        case 0: return .text(textTerm(&random))
        case 4: return .and((0..<2 + Int(random.next() % 2)).map { _ in expression(depth: depth + 1, &random) })
        case 5: return .or((0..<2 + Int(random.next() % 2)).map { _ in expression(depth: depth + 1, &random) })
        case 6: return .not(expression(depth: depth + 1, &random))
        default: return .predicate(predicate(&random))
        }
    }

    /// Words, phrases, prefixes and `message ctn` of 3+ characters under `and`, `or` and `not`.
    mutating func fullTextExpression(depth: Int, _ random: inout SeededRandom) -> QueryExpression {
        switch random.next() % (depth >= 2 ? 2 : 5) {
        case 0: return .text(textTerm(&random))
        case 1:
            let text = pick(["mon", "ey b", "caf", "bit.ly", "++ ", "@y.", "ok"], &random)
            return .predicate(QueryPredicate(field: .message, op: .contains, values: [.string(text)], range: 0..<1))
        case 2: return .and((0..<2 + Int(random.next() % 2)).map { _ in fullTextExpression(depth: depth + 1, &random) })
        case 3: return .or((0..<2 + Int(random.next() % 2)).map { _ in fullTextExpression(depth: depth + 1, &random) })
        default: return .not(fullTextExpression(depth: depth + 1, &random))
        }
    }

    /// Words (alone, several, with an exclusion, or alternatives) and one or two `date_sent` periods under one
    /// `and`: the queries whose pages and counts the word index reads as a range of its date-ordered keys.
    mutating func wordsInPeriod(_ random: inout SeededRandom) -> QueryExpression {
        var children: [QueryExpression]
        switch random.next() % 4 {
        case 0: children = [.text(textTerm(&random))]
        case 1: children = [.text(textTerm(&random)), .text(textTerm(&random))]
        case 2: children = [.text(textTerm(&random)), .not(.text(textTerm(&random)))]
        default: children = [.or([.text(textTerm(&random)), .text(textTerm(&random))])]
        }
        let operators: [FilterOperator] = [
            .equal, .in, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual,
        ]
        for _ in 0..<1 + Int(random.next() % 2) {
            let predicate = QueryPredicate(
                field: .dateSent, op: pick(operators, &random), values: [period(&random)], range: 0..<1)
            children.insert(.predicate(predicate), at: Int(random.next() % UInt64(children.count + 1)))
        }
        return .and(children)
    }

    private func pick<T>(_ items: [T], _ random: inout SeededRandom) -> T {
        items[Int(random.next() % UInt64(items.count))]
    }

    func textTerm(_ random: inout SeededRandom) -> TextTerm {
        let word = pick(SearchCorpus.vocabulary + ["++", "ref", "caf", "edited refund"], &random)
        switch random.next() % 3 {
        case 0: return TextTerm(kind: .word, text: word, range: 0..<1)
        case 1: return TextTerm(kind: .prefix, text: String(word.prefix(1 + Int(random.next() % 3))), range: 0..<1)
        default:
            let phrase = [word, pick(SearchCorpus.vocabulary, &random)].joined(separator: " ")
            return TextTerm(kind: .phrase, text: phrase, range: 0..<1)
        }
    }

    private func substring(_ random: inout SeededRandom) -> String {
        let word = pick(SearchCorpus.vocabulary + ["money back", "e-"], &random)
        let start = Int(random.next() % UInt64(max(1, word.count - 1)))
        let length = 1 + Int(random.next() % 5)
        return String(word.dropFirst(start).prefix(length))
    }

    /// Ids of archived users (1…6): a query naming an id the archive does not have is refused, not run.
    private func ids(_ random: inout SeededRandom) -> [QueryValue] {
        (0..<1 + Int(random.next() % 3)).map { _ in .int(1 + Int(random.next() % 6)) }
    }

    private func period(_ random: inout SeededRandom) -> QueryValue {
        let start = SearchCorpus.baseTime - 30 * 86_400 + Int(random.next() % (60 * 86_400))
        let length = pick([1, 3600, 86_400, 7 * 86_400], &random)
        return .period(start: start, end: start + length)
    }

    func predicate(_ random: inout SeededRandom) -> QueryPredicate {
        let comparisons: [FilterOperator] = [
            .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
        ]
        let field: QueryField
        var op: FilterOperator
        var values: [QueryValue]
        switch random.next() % 15 {
        case 0:
            field = .message
            op = pick([.contains, .contains, .contains, .equal, .notEqual], &random)
            values = [.string(op == .contains ? substring(&random) : pick(SearchCorpus.vocabulary, &random))]
        case 1, 2:
            field = pick([.senderID, .recipientID], &random)
            op = pick(comparisons + [.in, .notIn], &random)
            values = op == .in || op == .notIn ? ids(&random) : [.int(1 + Int(random.next() % 6))]
            if op == .equal, random.next() % 2 == 0 { values = [.login("user\(1 + random.next() % 6)")] }
        case 3:
            field = .dialog
            op = pick([.equal, .notEqual, .in, .notIn], &random)
            let dialogIDs = (0..<5).map { QueryValue.string(SearchCorpus.objectID(0xD00 + $0)) }
            values =
                op == .in || op == .notIn
                ? [pick(dialogIDs, &random), pick(dialogIDs, &random)] : [pick(dialogIDs, &random)]
        case 4:
            field = .dialogType
            op = pick([.equal, .notEqual, .in, .notIn], &random)
            values = [.int(1 + Int(random.next() % 3))]
        case 5:
            field = .dialogName
            op = pick([.equal, .notEqual, .contains], &random)
            values = [.string(op == .contains ? pick(["caf", "Room 1", "é", "x"], &random) : "Room 1 café")]
        case 6, 7:
            field = pick([.dateSent, .updatedAt], &random)
            op = pick(comparisons + [.in], &random)
            values = [period(&random)]
        case 8:
            field = .attachmentType
            op = pick([.equal, .notEqual, .in, .notIn], &random)
            values = [
                .string(pick(SearchCorpus.attachmentTypes, &random)),
                .string(pick(SearchCorpus.attachmentTypes, &random)),
            ]
            if op == .equal || op == .notEqual { values = [values[0]] }
        case 9, 10:
            field = pick([.readIDs, .occupantsIDs, .hiddenFor], &random)
            op =
                field == .hiddenFor
                ? pick([.equal, .notEqual, .in, .notIn], &random) : pick(comparisons + [.in, .notIn, .all], &random)
            values = [.in, .notIn, .all].contains(op) ? ids(&random) : [.int(1 + Int(random.next() % 6))]
        case 11:
            field = pick([.hasAttachment, .edited, .deleted, .hidden], &random)
            op = pick([.equal, .notEqual], &random)
            values = [.bool(random.next() % 2 == 0)]
        case 12, 13:
            field = pick([.custom("priority"), .custom("score")], &random)
            op = pick(comparisons + [.in, .notIn], &random)
            values =
                op == .in || op == .notIn
                ? ids(&random)
                : [
                    pick(
                        [.int(Int(random.next() % 6)), .int(-2), .string("2.5"), .string("-1.5"), .string("1e1")],
                        &random)
                ]
        default:
            field = .custom("label")
            op = pick([.equal, .notEqual, .contains, .in, .notIn], &random)
            values = [
                .string(
                    op == .contains ? pick(["urg", "LATER", "e"], &random) : pick(["urgent", "Later", "x"], &random))
            ]
        }
        return QueryPredicate(field: field, op: op, values: values, range: 0..<1)
    }
}

/// Random messages in many scripts and random words, phrases, prefixes and substrings drawn from them (other
/// cases, NFC and NFD, pieces of runs, stems of prefixed words): the archive's answer must be the reference's.
@Suite("Search differential, every script")
struct MultilingualDifferentialTests {
    @Test(arguments: TestBackend.all, [11, 12, 13] as [UInt64])
    func wordsPhrasesPrefixesAndSubstringsAgree(backend: TestBackend, seed: UInt64) async throws {
        let corpus = try await SearchCorpus.make(
            seed: seed, count: 400, backend: backend, vocabulary: SearchCorpus.multilingualVocabulary,
            separators: [" ", "", ", ", "、", "。"])
        defer { corpus.remove() }
        let reference = ReferenceEvaluator(users: corpus.users)
        var random = SeededRandom(seed: seed * 31_337)
        var generator = MultilingualTermGenerator()
        var nonEmpty = 0
        for _ in 0..<400 {
            let expression = generator.expression(depth: 0, &random)
            let query = Query(source: "", root: expression)
            let expected = Set(corpus.entries.filter { reference.matches(expression, $0) }.map(\.message.id))
            let hits = try await corpus.archive.search(query, options: SearchOptions(limit: 10_000))
            #expect(Set(hits.map(\.message.id)) == expected, "\(expression)")
            #expect(try await corpus.archive.count(query) == expected.count, "\(expression)")
            if !expected.isEmpty { nonEmpty += 1 }
        }
        #expect(nonEmpty > 150)
    }
}

/// Terms a moderator might type about ``SearchCorpus/multilingualVocabulary``.
struct MultilingualTermGenerator {
    private func pick<T>(_ items: [T], _ random: inout SeededRandom) -> T {
        items[Int(random.next() % UInt64(items.count))]
    }

    /// A vocabulary entry as someone else might write it: another case, NFD or NFC, or a piece of it.
    mutating func variant(_ random: inout SeededRandom) -> String {
        let word = pick(SearchCorpus.multilingualVocabulary, &random)
        switch random.next() % 6 {
        case 0: return word.uppercased()
        case 1: return word.lowercased()
        case 2: return word.decomposedStringWithCanonicalMapping
        case 3, 4:
            let characters = Array(word)
            let start = Int(random.next() % UInt64(characters.count))
            let length = 1 + Int(random.next() % UInt64(min(4, characters.count - start)))
            return String(characters[start..<(start + length)])
        default: return word
        }
    }

    mutating func expression(depth: Int, _ random: inout SeededRandom) -> QueryExpression {
        switch random.next() % (depth >= 1 ? 6 : 8) {
        case 0, 1: return .text(TextTerm(kind: .word, text: variant(&random), range: 0..<1))
        case 2:
            let word = variant(&random)
            return .text(TextTerm(kind: .prefix, text: String(word.prefix(1 + Int(random.next() % 3))), range: 0..<1))
        case 3:
            let phrase = variant(&random) + pick([" ", ""], &random) + variant(&random)
            return .text(TextTerm(kind: .phrase, text: phrase, range: 0..<1))
        case 4, 5:
            return .predicate(
                QueryPredicate(field: .message, op: .contains, values: [.string(variant(&random))], range: 0..<1))
        case 6: return .and((0..<2).map { _ in expression(depth: depth + 1, &random) })
        default: return .or((0..<2).map { _ in expression(depth: depth + 1, &random) })
        }
    }
}
