import QuickBlox

/// Predicates: `field op value`, `field in (a, b)`, `field:value`, and the REST form `field[op]=a,b`.
extension ParserState {
    /// A value as typed, before it is typed for its field.
    struct RawValue {
        var text: String
        var quoted: Bool
        var range: Range<Int>
    }

    /// Operators other query languages spell as words, which mean the same as ours after a field.
    static let wordOperators: [String: FilterOperator] = [
        "contains": .contains, "eq": .equal, "equals": .equal, "ne": .notEqual, "neq": .notEqual,
        "gt": .greaterThan, "ge": .greaterThanOrEqual, "gte": .greaterThanOrEqual, "lt": .lessThan,
        "le": .lessThanOrEqual, "lte": .lessThanOrEqual,
    ]

    /// `field op value`, `field op (values)` or `field:value`; `token` is the field name. `op`, when given, is
    /// the operator already read (`not in`), and the next token is the word that spelled it.
    mutating func predicate(field token: QueryToken, name: String, op given: FilterOperator? = nil) throws(QueryError)
        -> QueryPredicate
    {
        if let shortcut = QueryShortcut(name: name) { return try shortcutPredicate(shortcut, token) }
        let field = try field(named: name, at: token.range)
        guard let opToken = advance() else { throw error(at: nil, "expected an operator after the field") }
        let spelled = text(of: opToken.range).lowercased()
        let op: FilterOperator
        if let given {
            op = given
        } else if case .comparison(let comparison) = opToken.kind {
            op = comparison
        } else {
            op = Self.wordOperators[spelled] ?? FilterOperator(symbol: opToken.keyword ?? "") ?? .equal
        }
        try check(op, spelled: spelled, on: field, at: opToken.range)
        var raw: [RawValue] = []
        if op.takesList {
            raw = try list(after: opToken, spelled: spelled)
            if field.isDate, raw.count > 1 {
                throw error(at: raw[1].range, "a date field takes one date or period", hint: "use `or` for several")
            }
        } else {
            guard let value = valueToken() else { throw missingValue(after: opToken, spelled: spelled) }
            raw = [value]
        }
        var values: [QueryValue] = []
        for value in raw {
            values.append(try self.value(value.text, quoted: value.quoted, for: field, at: value.range))
            try checkNumber(values[values.count - 1], for: field, op: op, at: value.range)
        }
        let end = tokens[index - 1].range.upperBound  // the last value, or the list's `)`
        return QueryPredicate(field: field, op: op, values: values, range: token.range.lowerBound..<end)
    }

    /// `before:`, `after:`, `on:`, `during:`, `has:` and `is:`, read as the predicates they stand for.
    private mutating func shortcutPredicate(_ shortcut: QueryShortcut, _ token: QueryToken) throws(QueryError)
        -> QueryPredicate
    {
        let name = shortcut.rawValue
        let example =
            switch shortcut {
            case .before, .after, .on: "\(name):2024-03-01"
            case .during: "during:2024-03"
            case .has: "has:attachment"
            case .is: "is:edited"
            }
        guard let opToken = advance() else {
            throw error(at: token.range, "`\(name)` takes its value after a colon", hint: "write \(example)")
        }
        guard case .comparison(let op) = opToken.kind, op == .equal else {
            let spelled = QueryError.excerpt(text(of: opToken.range))
            throw error(at: opToken.range, "`\(spelled)` is not allowed on `\(name)`", hint: "write \(example)")
        }
        guard let value = valueToken() else {
            throw error(at: opToken.range, "`:` needs a value after it", hint: "write \(example)")
        }
        let range = token.range.lowerBound..<value.range.upperBound
        let lower = value.text.lowercased()
        switch shortcut {
        case .before, .after, .on, .during:
            guard let period = QueryDate.period(value.text, now: now, zone: zone) else {
                let hint = QueryDate.isSmallNumber(value.text) ? QueryDate.smallNumberHint : QueryDate.hint
                throw error(at: value.range, "`\(QueryError.excerpt(value.text))` is not a date", hint: hint)
            }
            return QueryPredicate(
                field: .dateSent, op: shortcut.dateOperator, values: [.period(start: period.start, end: period.end)],
                range: range)
        case .has:
            guard let (field, wanted) = QueryShortcut.hasValues[lower] else {
                throw error(
                    at: value.range, "`\(QueryError.excerpt(value.text))` is not something `has:` knows",
                    hint: QueryShortcut.hasHint)
            }
            return QueryPredicate(field: field, op: wanted.count > 1 ? .in : .equal, values: wanted, range: range)
        case .is:
            guard let (field, wanted) = QueryShortcut.isValues[lower] else {
                throw error(
                    at: value.range, "`\(QueryError.excerpt(value.text))` is not a state `is:` knows",
                    hint: QueryShortcut.isHint)
            }
            return QueryPredicate(field: field, op: .equal, values: [wanted], range: range)
        }
    }

    /// The values after `in`, `nin` or `all`: `(a, b)`, or without parentheses `a` or `a, b`.
    private mutating func list(after opToken: QueryToken, spelled: String) throws(QueryError) -> [RawValue] {
        guard let open = peek, open.kind == .openParenthesis else {
            guard let first = valueToken() else { throw missingValue(after: opToken, spelled: spelled) }
            var values = [first]
            while let comma = peek, comma.kind == .comma {
                index += 1
                guard let value = valueToken() else { throw error(at: comma.range, "a value is missing after `,`") }
                values.append(value)
            }
            return values
        }
        index += 1
        if let close = peek, close.kind == .closeParenthesis {
            throw error(at: close.range, "empty list after `\(spelled)`", hint: "give at least one value, as in (1, 2)")
        }
        var values: [RawValue] = []
        while true {
            guard let value = valueToken() else {
                guard let other = peek else {
                    throw error(at: open.range, "unbalanced `(` in the list", hint: "close the list with `)`")
                }
                throw error(at: other.range, "expected a value in the list", hint: "put the value in quotes")
            }
            values.append(value)
            guard let next = peek else {
                throw error(at: open.range, "unbalanced `(` in the list", hint: "close the list with `)`")
            }
            index += 1
            switch next.kind {
            case .closeParenthesis: return values
            case .comma:
                if let close = peek, close.kind == .closeParenthesis {
                    throw error(at: next.range, "a value is missing after `,`")
                }
            default: throw error(at: next.range, "expected `,` or `)` in the list")
            }
        }
    }

    /// The next bare or quoted value, consumed; `nil` (nothing consumed) when the next token is not one.
    mutating func valueToken() -> RawValue? {
        guard let token = peek else { return nil }
        switch token.kind {
        case .word(let text) where token.keyword != "and" && token.keyword != "or":
            index += 1
            return RawValue(text: text, quoted: false, range: token.range)
        case .quoted(let text):
            index += 1
            return RawValue(text: text, quoted: true, range: token.range)
        case .minus:
            // The lexer reads `-5` as a negation wherever a term may start; as a value it is the word again.
            guard index + 1 < tokens.count, case .word(let word) = tokens[index + 1].kind,
                tokens[index + 1].range.lowerBound == token.range.upperBound
            else { return nil }
            let range = token.range.lowerBound..<tokens[index + 1].range.upperBound
            index += 2
            return RawValue(text: text(of: token.range) + word, quoted: false, range: range)
        default: return nil
        }
    }

    private func missingValue(after opToken: QueryToken, spelled: String) -> QueryError {
        let keyword = peek?.keyword == "and" || peek?.keyword == "or"
        return error(
            at: opToken.range, "`\(spelled)` needs a value after it",
            hint: keyword ? "to compare with the word itself, put it in quotes" : nil)
    }

    /// The field called `name`, or an "unknown field" error at `range` naming the nearest fields.
    private func field(named name: String, at range: Range<Int>) throws(QueryError) -> QueryField {
        if let field = QueryField.named(name) { return field }
        if let instead = QueryField.flagInstead(of: name) {
            throw error(at: range, "`\(QueryError.excerpt(name))` is not a field", hint: instead)
        }
        let hint: String
        if let suggestions = QueryField.didYouMean(QueryField.suggestions(for: name)) {
            hint = suggestions
        } else if name.lowercased().hasPrefix("custom.") {
            hint = "a custom key is made of letters, digits, `_`, `.` and `-`"
        } else {
            hint =
                "search operators are from:, to:, in:, before:, after:, on:, during:, has: and is:, and every field "
                + "is listed in docs/query-language.md; to search for the text, put it in quotes"
        }
        throw error(at: range, "unknown field `\(QueryError.excerpt(name))`", hint: hint)
    }

    private func check(_ op: FilterOperator, spelled: String, on field: QueryField, at range: Range<Int>)
        throws(QueryError)
    {
        guard !field.operators.contains(op) else { return }
        let hint = "use " + field.operators.map(\.symbol).joined(separator: ", ")
        throw error(at: range, "`\(QueryError.excerpt(spelled))` is not allowed on `\(field.name)`", hint: hint)
    }

    /// `field[op]=value[,value]` or `field=value`: QuickBlox's own filter syntax, values percent-decoded.
    mutating func restPredicate(_ filter: QueryToken.RestFilter, range: Range<Int>) throws(QueryError)
        -> QueryPredicate
    {
        if QueryShortcut(name: filter.field) != nil {
            throw error(
                at: filter.fieldRange, "`\(filter.field)` is a search operator, not a QuickBlox filter",
                hint: "write \(filter.field.lowercased()):value, with a colon")
        }
        let field = try field(named: filter.field, at: filter.fieldRange)
        let name = filter.op.lowercased()
        let op: FilterOperator
        if name.isEmpty, filter.opRange.count == 1 {
            op = .equal  // plain `field=value`
        } else if let found = FilterOperator.queryOperators.first(where: { !$0.rawValue.isEmpty && $0.rawValue == name }
        ) {
            op = found
        } else {
            throw error(
                at: filter.opRange, "unknown operator `[\(QueryError.excerpt(filter.op))]`",
                hint: "use lt, lte, gt, gte, ne, in, nin, all or ctn")
        }
        try check(op, spelled: name.isEmpty ? "=" : name, on: field, at: filter.opRange)
        guard !filter.value.isEmpty || filter.quoted else {
            throw error(
                at: (filter.valueRange.lowerBound - 1)..<filter.valueRange.lowerBound, "a value is missing after `=`")
        }
        var values: [QueryValue] = []
        for piece in try pieces(of: filter, list: op.takesList && !field.isDate) {
            var text = filter.quoted ? piece.text : Self.percentDecoded(piece.text, plusIsSpace: true)
            if field.isDate, !filter.quoted, QueryDate.period(text, now: now, zone: zone) == nil {
                text = Self.percentDecoded(piece.text, plusIsSpace: false)  // `+02:00` typed rather than pasted
            }
            values.append(try value(text, quoted: filter.quoted, for: field, at: piece.range))
            try checkNumber(values[values.count - 1], for: field, op: op, at: piece.range)
        }
        return QueryPredicate(field: field, op: op, values: values, range: range)
    }

    /// The comma-separated parts of a REST value (the whole value when it is not a list), with offsets.
    private func pieces(of filter: QueryToken.RestFilter, list: Bool) throws(QueryError) -> [RawValue] {
        guard list, !filter.quoted else {
            return [RawValue(text: filter.value, quoted: filter.quoted, range: filter.valueRange)]
        }
        var pieces: [RawValue] = []
        var start = filter.valueRange.lowerBound
        for part in filter.value.split(separator: ",", omittingEmptySubsequences: false) {
            guard !part.isEmpty else {
                throw error(
                    at: start..<(start + 1), "a value is missing in the list", hint: "separate values with one `,`")
            }
            pieces.append(RawValue(text: String(part), quoted: false, range: start..<(start + part.count)))
            start += part.count + 1
        }
        return pieces
    }

    /// `%XX` escapes (as UTF-8) and, when `plusIsSpace`, `+` as a space, as in a URL query string; a
    /// malformed escape stays as it is and invalid UTF-8 becomes U+FFFD.
    static func percentDecoded(_ text: String, plusIsSpace: Bool) -> String {
        guard text.contains("%") || (plusIsSpace && text.contains("+")) else { return text }
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count, let high = hexDigit(utf8[i + 1]),
                let low = hexDigit(utf8[i + 2])
            {
                bytes.append(high << 4 | low)
                i += 3
            } else {
                bytes.append(plusIsSpace && utf8[i] == UInt8(ascii: "+") ? UInt8(ascii: " ") : utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
