import Archive
import QueryLanguage

/// What differs between SQL backends, and nothing else: placeholders, full-text and substring search,
/// JSON arrays, plan hints, a few aggregate and calendar expressions.
///
/// The shared reader (``SQLArchiveReading``) writes every statement once, calling its dialect where SQL
/// engines disagree; each backend module provides one dialect. What a dialect returns is this program's
/// own text: values a user typed travel only as bound values (``SQLFragment``).
public protocol SQLDialect: Sendable {
    /// The placeholder of the `index`-th bound value (from 1): `?` or `$1`.
    func placeholder(_ index: Int) -> String

    // MARK: Words and substrings

    /// The bound value that asks the word index for `query`.
    func wordQuery(_ query: WordQuery) -> SQLValue
    /// A condition on `messages m`: the message's words match a ``wordQuery(_:)`` value.
    func wordCondition(_ query: SQLValue) -> SQLFragment
    /// A statement selecting the keys (``wordKey``) of the messages whose words match.
    func wordKeys(_ query: SQLValue) -> SQLFragment
    /// ``wordKeys(_:)`` between two keys (`atLeast` included, `below` not), in key order — newest first when
    /// asked — from `offset` on, at most `limit` of them: the word index is read in date order and stops early.
    func orderedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool?, limit: Int?, offset: Int
    ) -> SQLFragment
    /// A statement returning the key of the `offset`-th match (from 0) among the messages of a key range, newest
    /// first when asked, walking them in date order no further than `within` messages; no row when the walk
    /// finds fewer (the reader then asks ``orderedWordKeys(_:atLeast:below:newestFirst:limit:offset:)``).
    /// `nil` when that statement reads the word index in date order itself (FTS5's doclists): only an index that
    /// is not in date order needs the walk.
    func walkedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool, within: Int, offset: Int
    ) -> SQLFragment?
    /// ``wordKeys(_:)`` between two keys that a walk (``walkedWordKeys(_:atLeast:below:newestFirst:within:offset:)``)
    /// has just stepped through, so that the range holds few messages: read by walking the range and testing each
    /// message, not from the word index (which would read all of the words' hits to keep the range's few).
    func walkedRangeWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment
    /// The share of the messages the engine's planner assumes, at most, for a word its statistics do not list
    /// (PostgreSQL: 0.5 %), for which it may walk every message; `nil` when the planner asks the word index
    /// itself (SQLite's, FTS5). A page of such words and other conditions fetches the words' hits first when
    /// they are few.
    var unlistedWordShare: Double? { get }
    /// The rows the engine's plan (``SQLConnection/plan(of:)``) of a statement estimates it returns, when it says.
    func estimatedRows(plan: [String]) -> Double?
    /// Whether the shared reader steers a page of frequent words beside other conditions — a bounded walk of the
    /// date index, else the page collected with its total in one pass over the words' hits — rather than leave it
    /// to the planner and count apart. SQLite: its planner fetches and sorts every hit, and each hit's row is a
    /// page copied in, so reading them once instead of twice halves the cost. PostgreSQL: its planner walks dates
    /// for the page by itself, its bitmap scans read the hits in page order for the count, and collected matches
    /// would cross the wire (measured 3× slower with 17,000 of them).
    var steersWordsBesideConditions: Bool { get }
    /// A condition on `messages m`: its ``wordKey`` is one of the keys `keys` selects (one of the word index's
    /// statements), as the engine best reads a few keys out of many messages.
    func wordKeyIn(_ keys: SQLFragment) -> SQLFragment
    /// A statement selecting the keys (``messageKey``) of the messages whose text contains `text` through a
    /// substring index, or `nil` when the index cannot answer (too short a text).
    func substringKeys(_ text: String) -> SQLFragment?
    /// A condition: `column` contains `text`, case-insensitively, without an index (any length).
    func containsCondition(column: SQLFragment, _ text: SQLFragment) -> SQLFragment
    /// The column of `messages m` the substring index's statements select: SQLite's `m.rowid`.
    var messageKey: String { get }
    /// The column of `messages m` the word index's statements select: a key in date order, whose second is
    /// ``dateKeyFloor(_:)``'s.
    var wordKey: String { get }
    /// The word keys of the messages sent in the second of `dateSent` (messages dated outside the keys'
    /// range share the range of its end).
    func dateKeys(sentAt dateSent: Int) -> Range<Int64>
    /// The word keys of the second a key belongs to.
    func dateKeys(secondOf key: Int64) -> Range<Int64>
    /// The name of the key column in the index statements' results, to combine them (`rowid`).
    var keyColumn: String { get }

    /// A statement selecting the word key (`rank_rowid`) and the best-match score (`rank_score`) of each message
    /// whose words match `query`, between two keys (`atLeast` included, `below` not). The same message's score is
    /// the same number in every statement of a read.
    func rankedWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment
    /// Whether a higher ``rankedWordKeys(_:atLeast:below:)`` score is a better match (PostgreSQL's `ts_rank`)
    /// rather than a lower one (SQLite's bm25).
    var higherScoreIsBetter: Bool { get }

    // MARK: JSON arrays

    /// A table of the elements of a JSON array `column`, as `alias` with the element in ``jsonElement(_:)``.
    func jsonElements(of column: String, as alias: String) -> String
    /// The element of a ``jsonElements(of:as:)`` row.
    func jsonElement(_ alias: String) -> String
    /// The element of a ``jsonElements(of:as:)`` row as an integer, for comparing with ids (`NULL` when it
    /// is not one).
    func jsonIntegerElement(_ alias: String) -> String
    /// A member of a JSON object expression, by a literal path of this program's (`$.type`).
    func jsonMember(_ expression: String, path: String) -> String
    /// A member of a JSON object column by a bound path (custom parameters a user names).
    func jsonMember(_ expression: String, boundPath: String) -> SQLFragment
    /// The number of elements of a JSON array column.
    func jsonArrayLength(_ column: String) -> String
    /// The custom parameter at `boundPath` of the JSON object `column` as a number, for `<`, `>` on custom
    /// parameters: a JSON number, or a string that is wholly one (``CustomNumber``); `NULL` for anything else
    /// (`abc`, `3abc`, `true`), so that no comparison matches it.
    func customNumber(_ column: String, boundPath: String) -> SQLFragment
    /// A JSON array of the values of `expression`, aggregated over a group.
    func jsonArrayAggregate(_ expression: String) -> String

    // MARK: Plans, aggregates, calendar

    /// `messages m`, read in `date_sent` order through its index: the plan that walks dates and stops
    /// after enough hits (see ``SQLArchiveReading``'s search).
    var messagesByDate: String { get }
    /// How many rows of a group satisfy `condition`.
    func countWhere(_ condition: String) -> String
    /// `expression` divided by `divisor`, rounded down (also for negative values).
    func floorDivision(_ expression: String, _ divisor: Int) -> String
    /// The unix time at which the month holding day number `day` (days since 1970-01-01) starts.
    func monthStart(day: String) -> String

    /// `column` is one of the values `subquery` returns: `IN (subquery)`, unless `few` (the subquery returns a
    /// handful of values) and the dialect plans that as a scan of the whole table (``PostgresDialect``: an array,
    /// one index look-up per value — but an array of many values is tested value by value on every row read).
    func isMember(_ column: String, of subquery: String, few: Bool) -> String
}

extension SQLDialect {
    /// A join of `messages m` to each message's best-match score for `query` (`rk.rank_score`, once per hit in
    /// a joined subquery), and the ordering that puts the best first (matches without a score last).
    public func rankJoin(_ query: SQLValue) -> (join: SQLFragment, order: String) {
        (
            " LEFT JOIN (\(rankedWordKeys(query, atLeast: nil, below: nil))) rk ON rk.rank_rowid = \(raw: wordKey)",
            "rk.rank_score IS NULL, rk.rank_score" + (higherScoreIsBetter ? " DESC" : "")
        )
    }
}

/// A full-text query over the word index, as the shared compiler builds it; each dialect writes it in its
/// engine's syntax, every term as one quoted string (never the engine's operators).
public indirect enum WordQuery: Sendable, Hashable {
    /// One word, phrase or prefix.
    case term(TextTerm)
    /// Every part (`AND`).
    case all([WordQuery])
    /// Any part (`OR`).
    case any([WordQuery])
    /// A part in parentheses.
    case group(WordQuery)
    /// The first part, without any of the others (`NOT`).
    case except(WordQuery, [WordQuery])
}

extension SQLDialect {
    public func isMember(_ column: String, of subquery: String, few: Bool) -> String {
        "\(column) IN (\(subquery))"
    }
}
