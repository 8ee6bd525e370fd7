import ArchiveSQL
import Foundation
import QueryLanguage
import TextIndex

/// SQLite's SQL for the shared reader: FTS5 word and trigram indexes keyed by `rowid`, JSON1 functions,
/// `INDEXED BY` to steer a plan, booleans that sum as integers.
public struct SQLiteDialect: SQLDialect {
    public init() {}

    public func placeholder(_ index: Int) -> String { "?" }

    // MARK: Words and substrings

    /// An FTS5 query: each term one quoted string (quotes doubled), a prefix followed by ` *`; never FTS5
    /// syntax from the user (`NEAR`, `-`, `.`, `@` are searched for).
    public func wordQuery(_ query: WordQuery) -> SQLValue {
        .text(Self.fts(query))
    }

    static func fts(_ query: WordQuery) -> String {
        switch query {
        case .term(let term):
            let quoted = "\"" + term.text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            return term.kind == .prefix ? quoted + " *" : quoted
        case .all(let parts): return parts.map(fts).joined(separator: " AND ")
        case .any(let parts): return parts.map(fts).joined(separator: " OR ")
        case .group(let part): return "(" + fts(part) + ")"
        case .except(let part, let excluded): return fts(part) + excluded.map { " NOT " + fts($0) }.joined()
        }
    }

    public func wordCondition(_ query: SQLValue) -> SQLFragment {
        "m.date_key IN (SELECT rowid FROM message_words WHERE message_words MATCH \(query))"
    }

    public func wordKeys(_ query: SQLValue) -> SQLFragment {
        "SELECT rowid FROM message_words WHERE message_words MATCH \(query)"
    }

    /// FTS5 reads rowid ranges and either order from its doclists directly (no sort, no materialized set).
    public func orderedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool?, limit: Int?, offset: Int
    ) -> SQLFragment {
        var statement: SQLFragment = "SELECT rowid FROM message_words WHERE message_words MATCH \(query)"
        if let atLeast { statement += " AND rowid >= \(atLeast)" }
        if let below { statement += " AND rowid < \(below)" }
        if let newestFirst { statement += newestFirst ? " ORDER BY rowid DESC" : " ORDER BY rowid" }
        if let limit { statement += " LIMIT \(limit) OFFSET \(offset)" }
        return statement
    }

    /// No walk: ``orderedWordKeys(_:atLeast:below:newestFirst:limit:offset:)`` reads FTS5's doclists in date order.
    public func walkedWordKeys(
        _ query: SQLValue, atLeast: Int64?, below: Int64?, newestFirst: Bool, within: Int, offset: Int
    ) -> SQLFragment? { nil }

    /// Never asked (there is no walk); FTS5 reads a range of its doclists by key.
    public func walkedRangeWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment {
        orderedWordKeys(query, atLeast: atLeast, below: below, newestFirst: nil, limit: nil, offset: 0)
    }

    public var unlistedWordShare: Double? { nil }

    /// `EXPLAIN QUERY PLAN` gives no row counts.
    public func estimatedRows(plan: [String]) -> Double? { nil }

    public var steersWordsBesideConditions: Bool { true }

    public func wordKeyIn(_ keys: SQLFragment) -> SQLFragment { "\(raw: wordKey) IN (\(keys))" }

    /// The trigram index answers patterns of three folded scalars or more (one quoted string, which the index's
    /// tokenizer cuts into the same trigrams as the text).
    public func substringKeys(_ text: String) -> SQLFragment? {
        guard ContainsFolding.foldedLength(text) >= 3 else { return nil }
        let phrase = "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return "SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH \(phrase)"
    }

    /// A trigram index cannot match fewer than 3 scalars: the same rule (``TextIndex/ContainsFolding``), by a
    /// scan, with the `qbarchive_contains` function every connection registers.
    public func containsCondition(column: SQLFragment, _ text: SQLFragment) -> SQLFragment {
        "qbarchive_contains(\(column), \(text))"
    }

    public var messageKey: String { "m.rowid" }
    public var wordKey: String { "m.date_key" }
    public var keyColumn: String { "rowid" }

    public func dateKeys(sentAt dateSent: Int) -> Range<Int64> { DateKey.keys(sentAt: dateSent) }
    public func dateKeys(secondOf key: Int64) -> Range<Int64> { DateKey.keys(secondOf: key) }

    /// bm25 of each hit, read from FTS5 in a rowid range.
    public func rankedWordKeys(_ query: SQLValue, atLeast: Int64?, below: Int64?) -> SQLFragment {
        var statement: SQLFragment = """
            SELECT rowid AS rank_rowid, \(raw: WordRankFunction.name)(message_words) AS rank_score FROM message_words \
            WHERE message_words MATCH \(query)
            """
        if let atLeast { statement += " AND rowid >= \(atLeast)" }
        if let below { statement += " AND rowid < \(below)" }
        return statement
    }

    /// bm25 is lower for a better match.
    public var higherScoreIsBetter: Bool { false }

    // MARK: JSON arrays

    public func jsonElements(of column: String, as alias: String) -> String { "json_each(\(column)) \(alias)" }
    public func jsonElement(_ alias: String) -> String { "\(alias).value" }
    /// `json_each` gives a JSON number its SQL type already.
    public func jsonIntegerElement(_ alias: String) -> String { "\(alias).value" }
    /// `->` gives the member as JSON text (`3`, `"3"`, `true`), so `qbarchive_number` tells a string from a
    /// number and a boolean (`json_extract` reads `true` as 1); ``SQLiteArchive/numberFunction``.
    public func customNumber(_ column: String, boundPath: String) -> SQLFragment {
        "qbarchive_number(\(raw: column) -> \(boundPath))"
    }
    public func jsonMember(_ expression: String, path: String) -> String { "json_extract(\(expression), '\(path)')" }
    /// A boolean member is its JSON text, `true` or `false`, as PostgreSQL's `#>>` gives it (`json_extract`
    /// alone gives 1 and 0, so `custom.flag = true` found nothing and `custom.flag = 1` found `true`).
    public func jsonMember(_ expression: String, boundPath: String) -> SQLFragment {
        """
        (CASE json_type(\(raw: expression), \(boundPath)) WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' \
        ELSE json_extract(\(raw: expression), \(boundPath)) END)
        """
    }
    public func jsonArrayLength(_ column: String) -> String { "json_array_length(\(column))" }
    public func jsonArrayAggregate(_ expression: String) -> String { "json_group_array(\(expression))" }

    // MARK: Plans, aggregates, calendar

    public var messagesByDate: String { "messages m INDEXED BY messages_by_date" }

    /// A comparison is 0 or 1 in SQLite: the sum counts.
    public func countWhere(_ condition: String) -> String { "SUM(\(condition))" }

    /// SQLite's `/` rounds toward zero, wrong for times before 1970: subtract the non-negative remainder first.
    public func floorDivision(_ expression: String, _ divisor: Int) -> String {
        "((\(expression)) - (((\(expression)) % \(divisor)) + \(divisor)) % \(divisor)) / \(divisor)"
    }

    public func monthStart(day: String) -> String {
        "CAST(strftime('%s', (\(day)) * 86400, 'unixepoch', 'start of month') AS INTEGER)"
    }
}
