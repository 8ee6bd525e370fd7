import Foundation
import QuickBlox

/// What people type from other search tools and query languages: SQL's `like`, `between … and …`,
/// `not in`, regular expressions, a filter word without its colon, `limit 10`, `order by date`. Each either
/// means what it unambiguously means, or is an error that shows how this language says it — never a search
/// for the words.
extension ParserState {
    /// The expression for `field OP …` when OP is another language's operator after a field name (the token
    /// just read), or `nil` when the next token is none.
    mutating func foreignOperator(after fieldToken: QueryToken, field: QueryField) throws(QueryError)
        -> QueryExpression?
    {
        guard let next = peek else { return nil }
        let name = text(of: fieldToken.range)
        if case .foreign(let symbol) = next.kind { throw regularExpression(symbol, at: next.range, field: field) }
        guard case .word(let word) = next.kind else { return nil }
        switch word.lowercased() {
        case _ where Self.wordOperators[word.lowercased()] != nil:
            return .predicate(try predicate(field: fieldToken, name: name))
        case "like", "ilike":
            throw like(word, at: next.range, field: field, valueAfter: index + 1)
        case "matches", "match", "regexp", "regex", "rlike", "similar":
            throw regularExpression(word, at: next.range, field: field)
        case "between":
            index += 1
            return try between(fieldToken, field: field, opToken: next)
        case "is":
            throw error(
                at: next.range, "`is` compares in SQL; here a field is compared with `=`, `!=` or `:`",
                hint: "write \(field.name) = VALUE (and is:edited, is:deleted, is:hidden, is:private for states)")
        case "not":
            guard index + 1 < tokens.count, case .word(let after) = tokens[index + 1].kind else { return nil }
            switch after.lowercased() {
            case "in":
                index += 1  // `not`; `in` is read as the operator
                return .predicate(try predicate(field: fieldToken, name: name, op: .notIn))
            case "contains":
                index += 1
                return .not(.predicate(try predicate(field: fieldToken, name: name)))
            case "between":
                index += 2
                return .not(try between(fieldToken, field: field, opToken: tokens[index - 1]))
            case "like", "ilike":
                throw like(
                    after, at: next.range.lowerBound..<tokens[index + 1].range.upperBound, field: field,
                    valueAfter: index + 2, negated: true)
            default:
                return nil
            }
        default:
            return nil
        }
    }

    /// The error for a regular-expression operator (`~`, `=~`, `matches`…), after `field` when there is one.
    func regularExpression(_ symbol: String, at range: Range<Int>, field: QueryField?) -> QueryError {
        let hint: String
        if let field, field != .message {
            hint = "compare \(field.name) with =, != or in (a, b); words and message ctn \"…\" search the text"
        } else {
            hint = "use message ctn \"text\" for messages containing a string, or words: refund, refu*, \"money back\""
        }
        return error(
            at: range, "`\(QueryError.excerpt(symbol))` (a regular-expression match) is not part of this language",
            hint: hint)
    }

    /// The error for SQL's `like`, with the filter this language writes for it.
    private func like(
        _ word: String, at range: Range<Int>, field: QueryField, valueAfter position: Int, negated: Bool = false
    ) -> QueryError {
        var value = "VALUE"
        if position < tokens.count {
            switch tokens[position].kind {
            case .word(let text), .quoted(let text): value = text
            default: break
            }
        }
        let bare = value.trimmingCharacters(in: CharacterSet(charactersIn: "%*_"))
        let not = negated ? "not " : ""
        let ours: String
        switch field {
        case .senderID: ours = "\(not)from:\(bare.isEmpty ? "alice" : bare)"
        case .recipientID: ours = "\(not)to:\(bare.isEmpty ? "alice" : bare)"
        case .dialog: ours = "\(not)in:\(bare.isEmpty ? "general" : bare)"
        case _ where field.operators.contains(.contains): ours = "\(not)\(field.name) ctn \"\(bare)\""
        default: ours = "\(not)\(field.name) = \(bare)"
        }
        return error(
            at: range, "`\(QueryError.excerpt(word.lowercased()))` is SQL's pattern match, not part of this language",
            hint: "write \(ours)")
    }

    /// `field between A and B`: from the start of A to the end of B, both included, for dates and numbers.
    private mutating func between(_ fieldToken: QueryToken, field: QueryField, opToken: QueryToken)
        throws(QueryError) -> QueryExpression
    {
        let example = field.isDate ? "date between 2024-01-01 and 2024-01-31" : "\(field.name) between 1 and 9"
        guard let low = valueToken() else {
            throw error(at: opToken.range, "`between` needs a value after it", hint: "write \(example)")
        }
        guard let and = peek, and.keyword == "and" else {
            throw error(
                at: peek?.range ?? opToken.range, "`between` needs `and` between its two values",
                hint: "write \(example)")
        }
        index += 1
        guard let high = valueToken() else {
            throw error(at: and.range, "`and` needs the second value of `between` after it", hint: "write \(example)")
        }
        let range = fieldToken.range.lowerBound..<high.range.upperBound
        let lowValue = try value(low.text, quoted: low.quoted, for: field, at: low.range)
        let highValue = try value(high.text, quoted: high.quoted, for: field, at: high.range)
        switch (field, lowValue, highValue) {
        case (_, .period, .period), (.senderID, .int, .int), (.recipientID, .int, .int), (.custom, .int, .int),
            (.readIDs, .int, .int), (.occupantsIDs, .int, .int):
            return .and([
                .predicate(QueryPredicate(field: field, op: .greaterThanOrEqual, values: [lowValue], range: range)),
                .predicate(QueryPredicate(field: field, op: .lessThanOrEqual, values: [highValue], range: range)),
            ])
        default:
            throw error(
                at: opToken.range, "`between` works on dates and numbers, not on `\(field.name)`",
                hint: "use \(field.name) in (a, b) for a list of values")
        }
    }

    /// Before a bare word becomes a word to search for: a filter word followed by its value without the colon
    /// (`before 2024-01-01`, `has link`, `is edited`) or a flag written into the query (`limit 10`,
    /// `order by date`) is an error that shows the filter; `from`, `to` or `in` and a value are recorded for the
    /// archive to check (``QueryAmbiguity``).
    mutating func checkWordBeforeValue(_ token: QueryToken, _ word: String) throws(QueryError) {
        guard let next = peek, next.keyword != "and", next.keyword != "or" else { return }
        let lower = word.lowercased()
        if case .quoted(let value) = next.kind, let field = QueryField.named(lower),
            ["from", "sender", "to", "recipient", "in", "dialog"].contains(lower)
        {
            let both = token.range.lowerBound..<next.range.upperBound
            ambiguities.append(QueryAmbiguity(field: field, word: word, value: value, range: both))
            return
        }
        guard case .word(let value) = next.kind else { return }
        let both = token.range.lowerBound..<next.range.upperBound
        let typed = "\(QueryError.excerpt(word)) \(QueryError.excerpt(value))"
        func colonMissing(_ filter: String, _ meaning: String) -> QueryError {
            error(
                at: both, "`\(typed)` would search for two words",
                hint: "write \(filter) for \(meaning); to search for the words, put them in quotes: \"\(typed)\"")
        }
        switch lower {
        case "before", "after", "on", "during", "since", "until":
            guard Self.looksLikeDate(value) else { return }
            let name = lower == "since" ? "after" : lower == "until" ? "before" : lower
            throw colonMissing("\(name):\(value)", "messages sent \(name == "during" ? "in" : name) \(value)")
        case "has":
            guard QueryShortcut.hasValues[value.lowercased()] != nil else { return }
            throw colonMissing("has:\(value.lowercased())", "messages with one")
        case "is":
            guard QueryShortcut.isValues[value.lowercased()] != nil else { return }
            throw colonMissing("is:\(value.lowercased())", "those messages")
        case "limit", "top", "offset", "skip":
            guard Int(value) != nil, let instead = QueryField.flagInstead(of: lower) else { return }
            throw error(at: both, "`\(typed)` is not part of a query", hint: instead)
        case "order", "sort":
            guard value.lowercased() == "by", let instead = QueryField.flagInstead(of: lower) else { return }
            throw error(at: both, "`\(typed)` is not part of a query", hint: instead)
        case "from", "sender", "to", "recipient", "in", "dialog":
            guard next.keyword.map({ ["not", "in", "nin", "all", "ctn"].contains($0) }) != true,
                let field = QueryField.named(lower)
            else { return }
            ambiguities.append(QueryAmbiguity(field: field, word: word, value: value, range: both))
        default:
            return
        }
    }

    /// A day or month written as digits (`2024-03`, `2024-03-01`, with a time or not): what nobody searches
    /// for as text after `before` or `on`.
    static func looksLikeDate(_ text: String) -> Bool {
        let digits = text.prefix(4)
        return text.count >= 7 && digits.count == 4 && digits.allSatisfy(\.isNumber)
            && text.dropFirst(4).first == "-" && QueryDate.period(text, now: 0) != nil
    }
}
