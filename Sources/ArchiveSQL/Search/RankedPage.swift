import Archive
import Foundation
import QueryLanguage

/// A ranked page (`--sort rank`) of words, read in two steps: the best `limit + offset` keys and scores — from
/// the word index alone for a query of words, phrases and prefixes (and a period of the sending date), with each
/// hit's row tested for other conditions beside them — then those messages' rows.
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
    /// The query's condition on `messages m` (and `dialogs d`) when it has conditions other than words.
    let condition: SQLFragment?
    /// The query's period of the sending date, as word keys.
    let atLeast: Int64?
    let below: Int64?
    /// `limit + offset`.
    let wanted: Int

    /// Pages reaching deeper than this are ranked by the one-statement plan: the keys travel as bound values.
    static let deepest = 2_000

    /// The two-step plan of `query`, or `nil` when it does not apply: another order, an empty or too deep a page,
    /// and a query some of whose matches may have no score — one that is not an `and` with words, phrases or
    /// prefixes (or alternatives of them) among its parts (`invoice OR from:user7`).
    init?(_ query: Query, options: SearchOptions, compiler: SearchCompiler, dialect: any SQLDialect) throws {
        let terms = query.root.rankableTerms
        guard options.sort == .rank, options.limit > 0, options.limit + options.offset <= Self.deepest,
            !terms.isEmpty
        else { return nil }
        let any = WordQuery.any(terms.map(WordQuery.term))
        self.dialect = dialect
        ranking = dialect.wordQuery(any)
        wanted = options.limit + options.offset
        if let (words, atLeast, below) = compiler.wordQueryInPeriod(query.root) {
            let same = words == any || (terms.count == 1 && words == .term(terms[0]))
            matches = same ? nil : dialect.wordQuery(words)
            condition = nil
            self.atLeast = atLeast
            self.below = below
        } else if case .and(let children) = query.root, children.contains(where: \.isWordsOnly) {
            // Every match has one of those words, so a score.
            matches = nil
            condition = try compiler.compile(query.root)
            atLeast = nil
            below = nil
        } else {
            return nil
        }
    }

    /// The statement selecting the best `limit + offset` keys and their scores (what `--explain` shows).
    var best: SQLFragment { scores(atLeast: atLeast, below: below, limit: wanted) }

    /// The keys and scores of the query's matches between two keys, best first, then newest key first.
    private func scores(atLeast: Int64?, below: Int64?, limit: Int?) -> SQLFragment {
        var statement: SQLFragment =
            "SELECT rk.rank_rowid, rk.rank_score FROM (\(dialect.rankedWordKeys(ranking, atLeast: atLeast, below: below))) AS rk"
        if let condition {
            // `+`: the hits drive the join (each one's row fetched by its key), not the messages probing the word
            // index one by one.
            statement += """
                 JOIN messages m ON m.date_key = +rk.rank_rowid LEFT JOIN dialogs d ON d.id = m.dialog_id \
                WHERE \(condition)
                """
        } else if let matches {
            let keys = dialect.orderedWordKeys(
                matches, atLeast: atLeast, below: below, newestFirst: nil, limit: nil, offset: 0)
            // `+`: not a constraint the word index is asked with — FTS5 would run the whole query again for each
            // key of the list (minutes for 25,000 keys at a million messages); the list is probed instead.
            statement += " WHERE +rk.rank_rowid IN (\(keys))"
        }
        statement += " ORDER BY rk.rank_score\(raw: dialect.higherScoreIsBetter ? " DESC" : ""), rk.rank_rowid DESC"
        if let limit { statement += " LIMIT \(limit)" }
        return statement
    }

    /// The page and its total in one pass over the words' hits, for a query with conditions beside its words on
    /// engines whose pages of words beside conditions the shared reader steers
    /// (``SQLDialect/steersWordsBesideConditions``); `nil` otherwise, and when
    /// the words have more hits than ``Collected/atMost``. Each match's key, score, date and id are kept, their
    /// number is the total, and the page is sorted from them as the one-statement plan sorts: the total would
    /// otherwise read every hit's row a second time.
    func collected(options: SearchOptions, on connection: any SQLConnection) throws -> (hits: [SearchHit], total: Int)?
    {
        guard dialect.steersWordsBesideConditions, let condition,
            try Collected.fits(dialect.wordKeys(ranking), on: connection)
        else { return nil }
        var matches: [(order: MessageOrderKey, score: Double)] = []
        try connection.forEachCollected(
            """
            SELECT rk.rank_rowid, rk.rank_score, m.date_sent, m.id \
            FROM (\(dialect.rankedWordKeys(ranking, atLeast: nil, below: nil))) AS rk \
            JOIN messages m ON m.date_key = +rk.rank_rowid LEFT JOIN dialogs d ON d.id = m.dialog_id WHERE \(condition)
            """, limit: nil
        ) { row in matches.append((MessageOrderKey(dateSent: row[2], id: row[3], key: row[0]), row[1])) }
        matches.sort { ranksBefore($0, $1) }
        let page = matches.dropFirst(options.offset).prefix(options.limit).map(\.order.key)
        let rows = try Columns.hits(keys: page, on: connection)
        return (page.compactMap { rows[$0] }, matches.count)
    }

    /// The one-statement plan's order: the better score first, then the newer message (`date_sent`, then `id`).
    private func ranksBefore(
        _ a: (order: MessageOrderKey, score: Double), _ b: (order: MessageOrderKey, score: Double)
    ) -> Bool {
        if a.score != b.score { return dialect.higherScoreIsBetter ? a.score > b.score : a.score < b.score }
        return b.order < a.order
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
        var rows: [(hit: SearchHit, order: MessageOrderKey, score: Double)] = []
        for (key, hit) in try Columns.hits(keys: Array(found.keys), on: connection) {
            let order = MessageOrderKey(dateSent: hit.message.dateSent, id: hit.message.id, key: key)
            rows.append((hit, order, found[key] ?? 0))
        }
        rows.sort { ranksBefore(($0.order, $0.score), ($1.order, $1.score)) }
        return rows.dropFirst(options.offset).prefix(options.limit).map(\.hit)
    }
}

extension QueryExpression {
    /// A word, phrase or prefix, or alternatives of them: what the ranking's word query matches whenever this does.
    var isWordsOnly: Bool {
        switch self {
        case .text: return true
        case .or(let children): return children.allSatisfy { if case .text = $0 { true } else { false } }
        case .and, .not, .predicate: return false
        }
    }
}
