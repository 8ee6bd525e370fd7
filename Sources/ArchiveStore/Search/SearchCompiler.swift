import Foundation
import GRDB
import QueryLanguage

/// Compiles a parsed ``Query`` into a SQL condition over `messages m` joined to `dialogs d`.
///
/// Every value travels as a bound argument; the only text that reaches SQL is this file's own.
/// Full-text terms become FTS5 *strings* (quoted, quotes doubled), so input such as `NEAR`, `-`,
/// `.`, `@` or a stray quote is searched for rather than read as FTS5 syntax. Each term is its own
/// `rowid IN (… MATCH ?)` subquery, which lets `and`, `or` and `not` combine terms and column
/// predicates freely.
///
/// Missing values: a positive predicate never matches a message whose field is absent (`NULL`),
/// while `!=` and `nin` do — the message is not equal to, nor in, the given values.
struct SearchCompiler {
    /// Logins named in the query (`from:alice`), resolved to user ids before compiling.
    var userIDs: [String: Int] = [:]

    /// The SQL condition and its arguments.
    struct Fragment: Equatable {
        var sql: String
        var arguments: [DatabaseValue]
    }

    func compile(_ expression: QueryExpression) throws(QueryError) -> Fragment {
        switch expression {
        case .and(let children): return try join(children, with: "AND")
        case .or(let children): return try join(children, with: "OR")
        case .not(let child):
            // A comparison with NULL is NULL, and NOT NULL is NULL again: without COALESCE, `not from:3`
            // would drop messages that have no sender. Inside AND/OR, NULL already acts as false.
            let inner = try compile(child)
            return Fragment(sql: "NOT COALESCE((\(inner.sql)), 0)", arguments: inner.arguments)
        case .text(let term):
            return Self.words(Self.ftsString(term))
        case .predicate(let predicate):
            return try compile(predicate)
        }
    }

    /// Joins children with `AND` or `OR`. Sibling full-text terms become one FTS5 query
    /// (`"invoice" AND "refund"`), which intersects or unites their posting lists inside the index
    /// instead of fetching every message of each term: two common words that rarely meet cost what
    /// their few common hits cost.
    private func join(_ children: [QueryExpression], with op: String) throws(QueryError) -> Fragment {
        var parts: [String] = []
        var arguments: [DatabaseValue] = []
        let terms = children.compactMap { if case .text(let term) = $0 { term } else { nil } }
        var termsJoined = false
        for child in children {
            let fragment: Fragment
            if case .text = child, terms.count > 1 {
                if termsJoined { continue }
                termsJoined = true
                fragment = Self.words(terms.map(Self.ftsString).joined(separator: " \(op) "))
            } else {
                fragment = try compile(child)
            }
            parts.append("(\(fragment.sql))")
            arguments += fragment.arguments
        }
        return Fragment(sql: parts.joined(separator: " \(op) "), arguments: arguments)
    }

    /// Messages whose text matches an FTS5 query built by this type from quoted strings.
    private static func words(_ ftsQuery: String) -> Fragment {
        Fragment(
            sql: "m.rowid IN (SELECT rowid FROM message_words WHERE message_words MATCH ?)",
            arguments: [ftsQuery.databaseValue])
    }

    /// The FTS5 query string for a word, prefix or phrase: one quoted string, never FTS5 syntax.
    static func ftsString(_ term: TextTerm) -> String {
        let quoted = "\"" + term.text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return term.kind == .prefix ? quoted + " *" : quoted
    }

    private func compile(_ predicate: QueryPredicate) throws(QueryError) -> Fragment {
        let values = try predicate.values.map { (value) throws(QueryError) in try databaseValue(value, predicate) }
        switch predicate.field {
        case .message:
            if predicate.op == .contains { return Self.substring(column: "m.text", values[0], trigram: true) }
            return Self.scalar("m.text", predicate.op, values)
        case .senderID: return Self.scalar("m.sender_id", predicate.op, values)
        case .recipientID: return Self.scalar("m.recipient_id", predicate.op, values)
        case .dialog: return Self.scalar("m.dialog_id", predicate.op, values)
        case .dialogType: return Self.scalar("d.type", predicate.op, values)
        case .dialogName:
            if predicate.op == .contains { return Self.substring(column: "d.name", values[0], trigram: false) }
            return Self.scalar("d.name", predicate.op, values)
        case .dateSent: return Self.period("m.date_sent", predicate)
        case .updatedAt: return Self.period("m.updated_at", predicate)
        case .attachmentType:
            return Self.element("m.attachments", "json_extract(e.value, '$.type')", predicate.op, values)
        case .hasAttachment: return Self.flag("json_array_length(m.attachments) > 0", predicate)
        case .readIDs: return Self.element("m.read_ids", "e.value", predicate.op, values)
        case .occupantsIDs: return Self.element("d.occupant_ids", "e.value", predicate.op, values)
        case .edited: return Self.flag("m.edited > 0", predicate)
        case .deleted: return Self.flag("m.deleted_at IS NOT NULL", predicate)
        case .custom(let key):
            let path = "$.\"" + key.replacingOccurrences(of: "\"", with: "") + "\""
            let column = "json_extract(m.custom, ?)"
            if predicate.op == .contains {
                var fragment = Self.substring(column: column, values[0], trigram: false)
                fragment.arguments.insert(path.databaseValue, at: 0)
                return fragment
            }
            return Self.custom(column: column, path: path, predicate.op, values)
        }
    }

    private func databaseValue(_ value: QueryValue, _ predicate: QueryPredicate) throws(QueryError) -> DatabaseValue {
        switch value {
        case .int(let number): return number.databaseValue
        case .string(let text): return text.databaseValue
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .period(let start, _): return start.databaseValue
        case .login(let login):
            guard let id = userIDs[login] else {
                throw QueryError(
                    position: predicate.range.lowerBound, length: predicate.range.count,
                    message: "no archived user has the login `\(login)`",
                    hint: "check the spelling, or give the numeric user id")
            }
            return id.databaseValue
        }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// A column compared with one value or a list.
    private static func scalar(_ column: String, _ op: QueryOperator, _ values: [DatabaseValue]) -> Fragment {
        switch op {
        case .equal: return Fragment(sql: "\(column) = ?", arguments: values)
        case .notEqual: return Fragment(sql: "\(column) IS NOT ?", arguments: values)
        case .less: return Fragment(sql: "\(column) < ?", arguments: values)
        case .lessOrEqual: return Fragment(sql: "\(column) <= ?", arguments: values)
        case .greater: return Fragment(sql: "\(column) > ?", arguments: values)
        case .greaterOrEqual: return Fragment(sql: "\(column) >= ?", arguments: values)
        case .in, .all: return Fragment(sql: "\(column) IN (\(placeholders(values.count)))", arguments: values)
        case .notIn:
            return Fragment(
                sql: "(\(column) IS NULL OR \(column) NOT IN (\(placeholders(values.count))))", arguments: values)
        case .contains: return substring(column: column, values[0], trigram: false)
        }
    }

    /// Case-insensitive substring: the trigram index for message text of 3+ characters, else a scan.
    private static func substring(column: String, _ value: DatabaseValue, trigram: Bool) -> Fragment {
        let text = String.fromDatabaseValue(value) ?? ""
        if trigram, text.count >= 3 {
            return Fragment(
                sql: "m.rowid IN (SELECT rowid FROM message_trigrams WHERE message_trigrams MATCH ?)",
                arguments: [trigramPhrase(text).databaseValue])
        }
        // A trigram index cannot match fewer than 3 characters: the same case folding, by a scan.
        return Fragment(sql: "qbarchive_contains(\(column), ?)", arguments: [value])
    }

    /// The trigram index's query for a substring: one quoted string.
    static func trigramPhrase(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// A date column against a period `[start, end)`; see ``QueryValue/period(start:end:)``.
    private static func period(_ column: String, _ predicate: QueryPredicate) -> Fragment {
        guard case .period(let start, let end) = predicate.values.first else {
            return Fragment(sql: "0", arguments: [])
        }
        let s = start.databaseValue
        let e = end.databaseValue
        switch predicate.op {
        case .less: return Fragment(sql: "\(column) < ?", arguments: [s])
        case .lessOrEqual: return Fragment(sql: "\(column) < ?", arguments: [e])
        case .greater: return Fragment(sql: "\(column) >= ?", arguments: [e])
        case .greaterOrEqual: return Fragment(sql: "\(column) >= ?", arguments: [s])
        case .notEqual, .notIn:
            return Fragment(sql: "(\(column) IS NULL OR \(column) < ? OR \(column) >= ?)", arguments: [s, e])
        default: return Fragment(sql: "\(column) >= ? AND \(column) < ?", arguments: [s, e])
        }
    }

    /// An element of a JSON array column: `=`, `in` and comparisons match when any element does,
    /// `all` when every value is an element, `!=` and `nin` when no element matches.
    private static func element(
        _ array: String, _ element: String, _ op: QueryOperator, _ values: [DatabaseValue]
    ) -> Fragment {
        func exists(_ condition: Fragment) -> Fragment {
            Fragment(
                sql: "EXISTS (SELECT 1 FROM json_each(\(array)) e WHERE \(condition.sql))",
                arguments: condition.arguments)
        }
        switch op {
        case .notEqual: return exists(scalar(element, .equal, values)).negated(if: true)
        case .notIn: return exists(scalar(element, .in, values)).negated(if: true)
        case .all:
            let each = values.map { exists(scalar(element, .equal, [$0])) }
            return Fragment(
                sql: each.map { "(\($0.sql))" }.joined(separator: " AND "), arguments: each.flatMap(\.arguments))
        default: return exists(scalar(element, op, values))
        }
    }

    private static func flag(_ condition: String, _ predicate: QueryPredicate) -> Fragment {
        let wanted = (predicate.values.first == .bool(true)) != (predicate.op == .notEqual)
        return Fragment(sql: wanted ? condition : "NOT (\(condition))", arguments: [])
    }

    /// A custom parameter: numbers match whether the client stored them as numbers or as strings.
    private static func custom(column: String, path: String, _ op: QueryOperator, _ values: [DatabaseValue]) -> Fragment
    {
        let path = path.databaseValue
        let texts = values.map { value in
            if case .int64(let number) = value.storage { return String(number).databaseValue }
            return value
        }
        switch op {
        case .equal, .in:
            return Fragment(sql: "CAST(\(column) AS TEXT) IN (\(placeholders(texts.count)))", arguments: [path] + texts)
        case .notEqual, .notIn:
            return Fragment(
                sql: "(\(column) IS NULL OR CAST(\(column) AS TEXT) NOT IN (\(placeholders(texts.count))))",
                arguments: [path, path] + texts)
        default:
            return Fragment(sql: "CAST(\(column) AS REAL) \(op.rawValue) ?", arguments: [path] + values)
        }
    }
}

extension SearchCompiler.Fragment {
    func negated(if condition: Bool) -> Self {
        condition ? Self(sql: "NOT (\(sql))", arguments: arguments) : self
    }
}
