import ArchiveSQL
import Foundation
import QueryLanguage
import TextIndex

/// PostgreSQL's SQL for the shared reader: `$n` placeholders, the word index as a GIN-indexed `tsvector` of
/// TextIndex's tokens (``PostgresWords``) in `message_words`, keyed by `date_key`; `ctn` through a `pg_trgm`
/// index on the folded text (``PostgresFold``); JSON through `jsonb` functions over the canonical JSON text the
/// archive stores.
public struct PostgresDialect: SQLDialect {
    public init() {}

    public func placeholder(_ index: Int) -> String { "$\(index)" }

    // MARK: Words and substrings

    /// The `tsquery` input of `query`; statements cast it (`CAST($1 AS tsquery)`), so no parser reads it.
    public func wordQuery(_ query: WordQuery) -> SQLValue {
        .text(PostgresWords.query(query))
    }

    /// As SQLite's: the message's key among the words' hits, which PostgreSQL reads once from the GIN index into
    /// a hash (a hashed subplan) beside an `OR` or under a `NOT`, rather than probing once for every message.
    public func wordCondition(_ query: SQLValue) -> SQLFragment {
        "m.date_key IN (SELECT x.date_key FROM message_words x WHERE x.words @@ CAST(\(query) AS tsquery))"
    }

    public func wordKeys(_ query: SQLValue) -> SQLFragment {
        "SELECT w.date_key AS rowid FROM message_words w WHERE w.words @@ CAST(\(query) AS tsquery)"
    }

    /// The words' GIN index answers the match and the hits are sorted by key. The sort is of an expression
    /// (`date_key + 0`) so that the planner cannot walk the `date_key` index instead: it estimates a word
    /// missing from its statistics at 0.5 % of the messages and would walk the whole index for a word that
    /// is in no message (2 s at a million messages). ``walkedWordKeys(_:atLeast:below:newestFirst:within:offset:)``
    /// is the walk, bounded; the shared reader tries it first.
    public func orderedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool?, limit: Int?, offset: Int
    ) -> SQLFragment {
        var statement = wordKeys(query)
        if let atLeast { statement += " AND w.date_key >= \(atLeast)" }
        if let below { statement += " AND w.date_key < \(below)" }
        if let newestFirst { statement += newestFirst ? " ORDER BY w.date_key + 0 DESC" : " ORDER BY w.date_key + 0" }
        if let limit { statement += " LIMIT \(Int64(limit)) OFFSET \(Int64(offset))" }
        return statement
    }

    /// The `date_key` index walked from the range's end, `within` messages at most (the inner `LIMIT`; the
    /// shared reader sets it where fetching the hits would cost less), each tested against the words: a frequent
    /// word's page is found in the first few hundred messages, a word in no message costs 9 ms of walk at a
    /// million messages, not the 2 s of the whole index.
    public func walkedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool, within: Int, offset: Int
    ) -> SQLFragment? {
        let order: SQLFragment = newestFirst ? "DESC" : "ASC"
        var range: SQLFragment = "TRUE"
        if let atLeast { range += " AND w.date_key >= \(atLeast)" }
        if let below { range += " AND w.date_key < \(below)" }
        return """
            SELECT s.date_key AS rowid FROM (SELECT w.date_key, w.words FROM message_words w WHERE \(range) \
            ORDER BY w.date_key \(order) LIMIT \(Int64(within))) AS s \
            WHERE s.words @@ CAST(\(query) AS tsquery) ORDER BY s.date_key \(order) LIMIT 1 OFFSET \(Int64(offset))
            """
    }

    /// The range through the `date_key` index, each message tested with `ts_match_vq` — the function behind `@@`,
    /// which no index answers, so the planner cannot read the words' GIN index instead: it estimated a range of a
    /// few hundred messages at thousands and intersected it with the bitmap of all the words' hits (the 20 newest
    /// keys of `invoice` at a million messages: 4.5 ms through its 24,904 hits, 0.7 ms through the range's 853
    /// messages).
    public func walkedRangeWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment {
        var range: SQLFragment = "TRUE"
        if let atLeast { range += " AND w.date_key >= \(atLeast)" }
        if let below { range += " AND w.date_key < \(below)" }
        return
            "SELECT w.date_key AS rowid FROM message_words w WHERE \(range) AND ts_match_vq(w.words, CAST(\(query) AS tsquery))"
    }

    /// `DEFAULT_TS_MATCH_SEL`: `tsquerysel` estimates a lexeme missing from the column's most common elements
    /// at the smaller of 0.5 % and half the rarest listed one's frequency; for a rare word beside a condition the
    /// planner then walks the date index, testing every message.
    public var unlistedWordShare: Double? { 0.005 }

    /// The top node's `rows=` of `EXPLAIN`'s text.
    public func estimatedRows(plan: [String]) -> Double? {
        guard let top = plan.first, let start = top.range(of: " rows=") else { return nil }
        return Double(top[start.upperBound...].prefix { $0.isNumber })
    }

    public var steersWordsBesideConditions: Bool { false }

    /// The keys as an array computed first (an init plan of the GIN index's hits), then fetched by the
    /// `date_key` index: with `IN`, the planner may walk every message in date order probing each against the
    /// words when the statement sorts and limits (seconds for a rare word at a million messages).
    public func wordKeyIn(_ keys: SQLFragment) -> SQLFragment {
        "\(raw: wordKey) = ANY(ARRAY(\(keys)))"
    }

    /// Patterns of three folded scalars or more go through the trigram index on the folded text: `LIKE` with
    /// the folded pattern, its `%`, `_` and `\` escaped (pg_trgm's index is lossy; `LIKE` rechecks each row).
    public func substringKeys(_ text: String) -> SQLFragment? {
        guard ContainsFolding.foldedLength(text) >= 3 else { return nil }
        let pattern = "%" + Self.likeEscaped(ContainsFolding.folded(text)) + "%"
        return "SELECT s.rowid AS rowid FROM messages s WHERE COALESCE(s.text_folded, s.text) LIKE \(pattern)"
    }

    /// Message text is folded by the writer (`text_folded`, `NULL` when folding changes nothing); any other
    /// column by `qbarchive_fold`, the same rule compiled into SQL.
    public func containsCondition(column: SQLFragment, _ text: SQLFragment) -> SQLFragment {
        let folded: SQLFragment =
            column == "m.text" ? "COALESCE(m.text_folded, m.text)" : "qbarchive_fold(CAST(\(column) AS text))"
        return "strpos(\(folded), qbarchive_fold(CAST(\(text) AS text))) > 0"
    }

    public var messageKey: String { "m.rowid" }
    public var wordKey: String { "m.date_key" }
    public var keyColumn: String { "rowid" }

    public func dateKeys(sentAt dateSent: Int) -> Range<Int64> { DateKey.keys(sentAt: dateSent) }
    public func dateKeys(secondOf key: Int64) -> Range<Int64> { DateKey.keys(secondOf: key) }

    /// `ts_rank` over the stored `tsvector` (no body is read again).
    public func rankedWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment {
        var statement: SQLFragment = """
            SELECT r.date_key AS rank_rowid, ts_rank(r.words, CAST(\(query) AS tsquery)) AS rank_score \
            FROM message_words r WHERE r.words @@ CAST(\(query) AS tsquery)
            """
        if let atLeast { statement += " AND r.date_key >= \(atLeast)" }
        if let below { statement += " AND r.date_key < \(below)" }
        return statement
    }

    /// `ts_rank` is higher for a better match.
    public var higherScoreIsBetter: Bool { true }

    // MARK: JSON arrays

    public func jsonElements(of column: String, as alias: String) -> String {
        "jsonb_array_elements(CAST(\(column) AS jsonb)) AS \(alias)(value)"
    }

    /// The element as SQLite's `json_each` gives it to a comparison or a result: a string unquoted, anything
    /// else as its JSON text.
    public func jsonElement(_ alias: String) -> String { "(\(alias).value #>> '{}')" }

    /// An element that is an integer, as a `bigint` (`NULL` for anything else): ids compared with ids.
    public func jsonIntegerElement(_ alias: String) -> String {
        "(CASE WHEN jsonb_typeof(\(alias).value) = 'number' THEN CAST(CAST(\(alias).value AS numeric) AS bigint) END)"
    }

    public func jsonMember(_ expression: String, path: String) -> String {
        "(CAST(\(expression) AS jsonb) #>> \(Self.pathArray(path)))"
    }

    /// A bound path (`$."key"`) becomes a bound text array of its one key.
    public func jsonMember(_ expression: String, boundPath: String) -> SQLFragment {
        "(CAST(\(raw: expression) AS jsonb) #>> CAST(\(Self.pathText(boundPath)) AS text[]))"
    }

    /// A number only when the text is one (`NULL` otherwise), by ``CustomNumber``'s grammar. `#>>` gives a JSON
    /// number's digits and a string's text, and `true` for a boolean, which is no number.
    public func customNumber(_ column: String, boundPath: String) -> SQLFragment {
        let text: SQLFragment = "CAST(\(jsonMember(column, boundPath: boundPath)) AS text)"
        return
            "(CASE WHEN \(text) ~ '^\\s*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?\\s*$' THEN CAST(\(text) AS double precision) END)"
    }

    public func jsonArrayLength(_ column: String) -> String {
        "jsonb_array_length(CAST(\(column) AS jsonb))"
    }

    public func jsonArrayAggregate(_ expression: String) -> String {
        "CAST(json_agg(\(expression)) AS text)"
    }

    // MARK: Plans, aggregates, calendar

    /// PostgreSQL has no index hints: the planner sees `ORDER BY date_sent … LIMIT` and the `date_sent` index.
    public var messagesByDate: String { "messages m" }

    /// Few values: an array evaluated once, each value looked up in the index. PostgreSQL plans `IN (subquery)`
    /// from the table's figures of its last analysis (the stale dialogs' markers were many then, none now),
    /// which made it a scan of every message (4 s for 20 stale dialogs at 1M). Many: `IN`, a hash join — an
    /// array is tested value by value on every row a lossy bitmap scan reads (every dialog stale at 1M:
    /// 16–18 s a statement against 1.8 s).
    public func isMember(_ column: String, of subquery: String, few: Bool) -> String {
        few ? "\(column) = ANY(ARRAY(\(subquery)))" : "\(column) IN (\(subquery))"
    }

    public func countWhere(_ condition: String) -> String { "COUNT(*) FILTER (WHERE \(condition))" }

    /// `div` truncates toward zero as SQLite's `/` does: subtract the non-negative remainder first.
    public func floorDivision(_ expression: String, _ divisor: Int) -> String {
        "((\(expression)) - (((\(expression)) % \(divisor)) + \(divisor)) % \(divisor)) / \(divisor)"
    }

    public func monthStart(day: String) -> String {
        "CAST(extract(epoch FROM date_trunc('month', to_timestamp((\(day)) * 86400) AT TIME ZONE 'UTC')) AS bigint)"
    }

    /// A one-key path (`$.type`, `$."key"`) as PostgreSQL's text array input (`{"type"}`, `{"key"}`).
    static func pathText(_ path: String) -> String {
        var key = path.hasPrefix("$.") ? String(path.dropFirst(2)) : path
        if key.hasPrefix("\""), key.hasSuffix("\""), key.count >= 2 { key = String(key.dropFirst().dropLast()) }
        return "{\"" + key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\"}"
    }

    /// ``pathText(_:)`` as a SQL literal, for this program's own paths.
    static func pathArray(_ path: String) -> String {
        "'" + pathText(path).replacingOccurrences(of: "'", with: "''") + "'"
    }

    /// `text` with `LIKE`'s wildcards and its escape character escaped.
    static func likeEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_")
    }
}
