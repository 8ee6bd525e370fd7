import Archive
import Foundation
import QueryLanguage

/// A ranked page (`--sort rank`) of a words-only query, read in two steps: the best `limit + offset` keys and
/// scores from the word index alone, then those messages' rows.
///
/// The one-statement plan fetched every hit's row, with its dialog and users, and sorted them all by score: 220 ms
/// for a word in 25,000 of a million messages, most of it reading and sorting wide rows that were then thrown
/// away. Here only the scores are sorted (a top-N sort of two numbers), and the rows read are the page's.
struct RankedPage {
    let dialect: any SQLDialect
    /// The word index query whose score ranks: any of the query's words.
    let ranking: SQLValue
    /// The query's own word index query when it asks for more than any of its words (all of them, or some
    /// not): only its matches are ranked.
    let matches: SQLValue?
    /// The query's period of the sending date, as word keys.
    let atLeast: Int64?
    let below: Int64?
    /// `limit + offset`.
    let wanted: Int

    /// Pages reaching deeper than this are ranked by the one-statement plan: the keys travel as bound values.
    static let deepest = 2_000

    /// The two-step plan of `query`, or `nil` when it does not apply: a query with conditions other than words,
    /// phrases, prefixes and a period of the sending date (the page's scores are then those of the rows the
    /// condition keeps), another order, an empty or too deep a page.
    init?(_ query: Query, options: SearchOptions, compiler: SearchCompiler, dialect: any SQLDialect) {
        let terms = query.root.rankableTerms
        guard options.sort == .rank, options.limit > 0, options.limit + options.offset <= Self.deepest,
            !terms.isEmpty, let (words, atLeast, below) = compiler.wordQueryInPeriod(query.root)
        else { return nil }
        let any = WordQuery.any(terms.map(WordQuery.term))
        let same = words == any || (terms.count == 1 && words == .term(terms[0]))
        self.dialect = dialect
        ranking = dialect.wordQuery(any)
        matches = same ? nil : dialect.wordQuery(words)
        self.atLeast = atLeast
        self.below = below
        wanted = options.limit + options.offset
    }

    /// The statement selecting the best `limit + offset` keys and their scores (what `--explain` shows).
    var best: SQLFragment { scores(atLeast: atLeast, below: below, limit: wanted) }

    /// The keys and scores of the query's matches between two keys, best first, then newest key first.
    private func scores(atLeast: Int64?, below: Int64?, limit: Int?) -> SQLFragment {
        var statement: SQLFragment =
            "SELECT rank_rowid, rank_score FROM (\(dialect.rankedWordKeys(ranking, atLeast: atLeast, below: below))) AS rk"
        if let matches {
            let keys = dialect.orderedWordKeys(
                matches, atLeast: atLeast, below: below, newestFirst: nil, limit: nil, offset: 0)
            // `+`: not a constraint the word index is asked with — FTS5 would run the whole query again for each
            // key of the list (minutes for 25,000 keys at a million messages); the list is probed instead.
            statement += " WHERE +rank_rowid IN (\(keys))"
        }
        statement += " ORDER BY rank_score\(raw: dialect.higherScoreIsBetter ? " DESC" : ""), rank_rowid DESC"
        if let limit { statement += " LIMIT \(limit)" }
        return statement
    }

    /// The page's hits, or `nil` when the query has fewer matches than the page reaches (the one-statement plan
    /// then sorts no more rows than this would read).
    ///
    /// The best `wanted` keys by score, newest key first among equal scores, hold the page but for the order of
    /// messages sent in the same second with the last one's score: keys are in date order, not in message-id
    /// order within a second. So the matches of that second with that score are read too, and the rows are
    /// sorted as the one-statement plan sorts them (score, then `date_sent` and `id` newest first).
    func hits(options: SearchOptions, on connection: any SQLConnection) throws -> [SearchHit]? {
        var found: [Int64: Double] = [:]
        var last: (key: Int64, score: Double)?
        try connection.forEachCollected(best, limit: nil) { row in
            let key: Int64 = row[0]
            let score: Double = row[1]
            found[key] = score
            last = (key, score)
        }
        guard found.count == wanted, let last else { return nil }
        let second = dialect.dateKeys(secondOf: last.key)
        let tiesFrom = max(second.lowerBound, atLeast ?? .min)
        if tiesFrom < last.key {
            try connection.forEachCollected(scores(atLeast: tiesFrom, below: last.key, limit: nil), limit: nil) { row in
                let score: Double = row[1]
                if score == last.score { found[row[0]] = score }
            }
        }
        let higherIsBetter = dialect.higherScoreIsBetter
        var rows: [(hit: SearchHit, score: Double, order: MessageOrderKey)] = []
        for (key, hit) in try Columns.hits(keys: Array(found.keys), on: connection) {
            let order = MessageOrderKey(dateSent: hit.message.dateSent, id: hit.message.id, key: key)
            rows.append((hit, found[key] ?? 0, order))
        }
        rows.sort { a, b in
            if a.score != b.score { return higherIsBetter ? a.score > b.score : a.score < b.score }
            return b.order < a.order
        }
        return rows.dropFirst(options.offset).prefix(options.limit).map(\.hit)
    }
}
