import Archive
import Foundation
import QueryLanguage
import QuickBlox
import TextIndex

/// Compiles a parsed ``Query`` into a SQL condition over `messages m` joined to `dialogs d`, for a dialect.
///
/// Every value travels as a bound value; the only text that reaches SQL is this file's own and the
/// dialect's. Full-text terms become the dialect's word queries (each term one quoted string), so input
/// such as `NEAR`, `-`, `.`, `@` or a stray quote is searched for rather than read as index syntax. Each
/// term is its own key-in-index subquery, which lets `and`, `or` and `not` combine terms and column
/// predicates freely.
///
/// Missing values: a positive predicate never matches a message whose field is absent (`NULL`),
/// while `!=` and `nin` do — the message is not equal to, nor in, the given values.
struct SearchCompiler {
    let dialect: any SQLDialect
    /// The users and dialogs the query names, resolved before compiling.
    var references = QueryReferences()

    /// A compiler for `query` with the users and dialogs it names resolved (``QueryReferences``).
    static func resolving(_ query: Query, on connection: any SQLConnection) throws -> SearchCompiler {
        SearchCompiler(dialect: connection.dialect, references: try QueryReferences.resolve(query, on: connection))
    }

    func compile(_ expression: QueryExpression) throws(QueryError) -> SQLFragment {
        switch expression {
        case .and(let children): return try join(children, with: "AND")
        case .or(let children): return try join(children, with: "OR")
        case .not(let child):
            // A comparison with NULL is NULL, and NOT NULL is NULL again: without COALESCE, `not from:3`
            // would drop messages that have no sender. Inside AND/OR, NULL already acts as false.
            let inner = try compile(child)
            return "NOT COALESCE((\(inner)), FALSE)"
        case .text(let term):
            return dialect.wordCondition(dialect.wordQuery(.term(term)))
        case .predicate(let predicate):
            return try compile(predicate)
        }
    }

    /// Joins children with `AND` or `OR`. Sibling full-text terms become one word query
    /// (`"invoice" AND "refund"`), which intersects or unites their posting lists inside the index
    /// instead of fetching every message of each term: two common words that rarely meet cost what
    /// their few common hits cost.
    private func join(_ children: [QueryExpression], with op: String) throws(QueryError) -> SQLFragment {
        var parts: [SQLFragment] = []
        let terms = children.compactMap { if case .text(let term) = $0 { WordQuery.term(term) } else { nil } }
        var termsJoined = false
        for child in children {
            let fragment: SQLFragment
            if case .text = child, terms.count > 1 {
                if termsJoined { continue }
                termsJoined = true
                fragment = dialect.wordCondition(dialect.wordQuery(op == "AND" ? .all(terms) : .any(terms)))
            } else {
                fragment = try compile(child)
            }
            parts.append("(\(fragment))")
        }
        return .joined(parts, separator: " \(op) ")
    }

    private func compile(_ predicate: QueryPredicate) throws(QueryError) -> SQLFragment {
        var predicate = predicate
        var values: [SQLValue] = []
        for value in predicate.values { values += try sqlValues(value, predicate) }
        // A name may stand for several users or dialogs (two people called "John Smith"): `=` means any of them.
        if values.count > 1, predicate.op == .equal { predicate.op = .in }
        if values.count > 1, predicate.op == .notEqual { predicate.op = .notIn }
        switch predicate.field {
        case .message:
            if predicate.op == .contains { return substring(column: "m.text", values[0], indexed: true) }
            return scalar("m.text", predicate.op, values)
        case .senderID: return scalar("m.sender_id", predicate.op, values)
        case .recipientID: return scalar("m.recipient_id", predicate.op, values)
        case .dialog: return scalar("m.dialog_id", predicate.op, values)
        case .dialogType: return scalar("d.type", predicate.op, values)
        case .dialogName:
            if predicate.op == .contains { return substring(column: "d.name", values[0], indexed: false) }
            return scalar("d.name", predicate.op, values)
        case .dateSent: return period("m.date_sent", predicate)
        case .updatedAt: return period("m.updated_at", predicate)
        case .attachmentType:
            return element(
                "m.attachments", dialect.jsonMember(dialect.jsonElement("e"), path: "$.type"), predicate.op, values)
        case .hasAttachment: return flag("\(dialect.jsonArrayLength("m.attachments")) > 0", predicate)
        case .hasLink:
            let wanted = (predicate.values.first == .bool(true)) != (predicate.op == .notEqual)
            let linked: SQLFragment = "\(raw: dialect.messageKey) IN (\(linkKeys))"
            return wanted ? linked : "NOT (\(linked))"
        case .readIDs: return element("m.read_ids", dialect.jsonIntegerElement("e"), predicate.op, values)
        case .occupantsIDs: return element("d.occupant_ids", dialect.jsonIntegerElement("e"), predicate.op, values)
        case .edited: return flag("m.edited > 0", predicate)
        case .deleted: return flag("m.deleted_at IS NOT NULL", predicate)
        case .hidden: return flag("m.hidden_for IS NOT NULL", predicate)
        case .hiddenFor:
            // Who the message is hidden for lives in `message_hides`, one row per user.
            let list = SQLFragment.list(values)
            let exists: SQLFragment =
                "EXISTS (SELECT 1 FROM message_hides h WHERE h.message_id = m.id AND h.user_id IN (\(list)))"
            return [.notEqual, .notIn].contains(predicate.op) ? "NOT \(exists)" : exists
        case .custom(let key):
            let path = "$.\"" + key.replacingOccurrences(of: "\"", with: "") + "\""
            let column = dialect.jsonMember("m.custom", boundPath: path)
            if predicate.op == .contains { return dialect.containsCondition(column: column, .bind(values[0])) }
            if [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(predicate.op) {
                return customOrder(dialect.customNumber("m.custom", boundPath: path), predicate.op, values)
            }
            return custom(column: column, predicate.op, values)
        }
    }

    /// The bound values a query value stands for: one, or every user or dialog a name resolved to.
    private func sqlValues(_ value: QueryValue, _ predicate: QueryPredicate) throws(QueryError) -> [SQLValue] {
        switch value {
        case .int(let number): return [references.userID(number, predicate.field).sqlValue]
        case .bool(let flag): return [(flag ? 1 : 0).sqlValue]
        case .period(let start, _): return [start.sqlValue]
        case .string(let text):
            guard predicate.field == .dialog else { return [text.sqlValue] }
            return try resolved(references.dialogs[text], predicate).map { $0.id.sqlValue }
        case .login(let login):
            return try resolved(references.users[login], predicate).map { $0.id.sqlValue }
        }
    }

    /// What ``QueryReferences/resolve(_:on:)`` found (it refuses a query naming what it did not find).
    private func resolved<T>(_ found: [T]?, _ predicate: QueryPredicate) throws(QueryError) -> [T] {
        guard let found, !found.isEmpty else {
            throw QueryError(
                position: predicate.range.lowerBound, length: predicate.range.count,
                message: "`\(predicate.field.name)` names something the archive does not have")
        }
        return found
    }

    /// The keys of the messages whose text holds a link: `http://`, `https://` or `www.`, through the substring
    /// index (``TextIndex/ContainsFolding``: any case).
    var linkKeys: SQLFragment {
        .joined(
            ["http://", "https://", "www."].map { substringKeys($0) ?? "SELECT NULL WHERE 1 = 0" },
            separator: " UNION ")
    }

    /// A column compared with one value or a list.
    private func scalar(_ column: SQLFragment, _ op: FilterOperator, _ values: [SQLValue]) -> SQLFragment {
        switch op {
        case .equal: return "\(column) = \(values[0])"
        case .notEqual: return "\(column) IS DISTINCT FROM \(values[0])"
        case .lessThan: return "\(column) < \(values[0])"
        case .lessThanOrEqual: return "\(column) <= \(values[0])"
        case .greaterThan: return "\(column) > \(values[0])"
        case .greaterThanOrEqual: return "\(column) >= \(values[0])"
        case .in, .all, .or: return "\(column) IN (\(SQLFragment.list(values)))"
        case .notIn: return "(\(column) IS NULL OR \(column) NOT IN (\(SQLFragment.list(values))))"
        case .contains: return dialect.containsCondition(column: column, .bind(values[0]))
        }
    }

    private func scalar(_ column: String, _ op: FilterOperator, _ values: [SQLValue]) -> SQLFragment {
        scalar(SQLFragment.raw(column), op, values)
    }

    /// Case-insensitive substring (``TextIndex/ContainsFolding``): the substring index for message text when it
    /// can answer, the word index's characters and pairs then a check for one or two CJK characters, else a
    /// scan.
    private func substring(column: String, _ value: SQLValue, indexed: Bool) -> SQLFragment {
        if indexed, case .text(let text) = value, let keys = substringKeys(text) {
            return "\(raw: dialect.messageKey) IN (\(keys))"
        }
        return dialect.containsCondition(column: .raw(column), .bind(value))
    }

    /// The keys (``SQLDialect/messageKey``) of the messages whose text contains `text`, from an index, or `nil`
    /// when only a scan can tell.
    func substringKeys(_ text: String) -> SQLFragment? {
        if let keys = dialect.substringKeys(text) { return keys }
        guard ContainsFolding.isWordIndexed(text) else { return nil }
        let candidates = dialect.wordKeys(dialect.wordQuery(.term(TextTerm(kind: .word, text: text, range: 0..<0))))
        return """
            SELECT \(raw: dialect.messageKey) AS \(raw: dialect.keyColumn) FROM messages m \
            WHERE \(raw: dialect.wordKey) IN (\(candidates)) \
            AND \(dialect.containsCondition(column: "m.text", .bind(text.sqlValue)))
            """
    }

    /// A date column against a period `[start, end)`; see ``QueryValue/period(start:end:)``.
    private func period(_ column: String, _ predicate: QueryPredicate) -> SQLFragment {
        guard case .period(let start, let end) = predicate.values.first else { return "0" }
        let c = SQLFragment.raw(column)
        switch predicate.op {
        case .lessThan: return "\(c) < \(start)"
        case .lessThanOrEqual: return "\(c) < \(end)"
        case .greaterThan: return "\(c) >= \(end)"
        case .greaterThanOrEqual: return "\(c) >= \(start)"
        case .notEqual, .notIn: return "(\(c) IS NULL OR \(c) < \(start) OR \(c) >= \(end))"
        default: return "\(c) >= \(start) AND \(c) < \(end)"
        }
    }

    /// An element of a JSON array column: `=`, `in` and comparisons match when any element does,
    /// `all` when every value is an element, `!=` and `nin` when no element matches.
    private func element(_ array: String, _ element: String, _ op: FilterOperator, _ values: [SQLValue])
        -> SQLFragment
    {
        func exists(_ condition: SQLFragment) -> SQLFragment {
            "EXISTS (SELECT 1 FROM \(raw: dialect.jsonElements(of: array, as: "e")) WHERE \(condition))"
        }
        switch op {
        case .notEqual: return "NOT (\(exists(scalar(element, .equal, values))))"
        case .notIn: return "NOT (\(exists(scalar(element, .in, values))))"
        case .all:
            return .joined(values.map { "(\(exists(scalar(element, .equal, [$0]))))" }, separator: " AND ")
        default: return exists(scalar(element, op, values))
        }
    }

    private func flag(_ condition: String, _ predicate: QueryPredicate) -> SQLFragment {
        let wanted = (predicate.values.first == .bool(true)) != (predicate.op == .notEqual)
        return .raw(wanted ? condition : "NOT (\(condition))")
    }

    /// A custom parameter: numbers match whether the client stored them as numbers or as strings.
    private func custom(column: SQLFragment, _ op: FilterOperator, _ values: [SQLValue]) -> SQLFragment {
        let texts = values.map { value -> SQLValue in
            if case .integer(let number) = value { return .text(String(number)) }
            return value
        }
        switch op {
        case .equal, .in:
            return "CAST(\(column) AS TEXT) IN (\(SQLFragment.list(texts)))"
        default:
            return "(\(column) IS NULL OR CAST(\(column) AS TEXT) NOT IN (\(SQLFragment.list(texts))))"
        }
    }

    /// A custom parameter compared as a number with a bound the parser made sure is one (``CustomNumber``).
    private func customOrder(_ number: SQLFragment, _ op: FilterOperator, _ values: [SQLValue]) -> SQLFragment {
        let bound: SQLValue
        switch values.first {
        case .integer(let value): bound = .integer(value)
        case .text(let text):
            guard let value = CustomNumber.value(of: text) else { return "0" }
            bound = .real(value)
        default: return "0"
        }
        return "\(number) \(raw: op.symbol) \(bound)"
    }
}
