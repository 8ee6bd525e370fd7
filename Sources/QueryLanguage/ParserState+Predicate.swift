import Foundation

/// Predicates: `field op value`, `field in (a, b)`, `field:value` and `field[op]=a,b`.
extension ParserState {
    func field(_ token: QueryToken, _ name: String) throws(QueryError) -> QueryField {
        if let field = QueryField.named(name) { return field }
        let hint = QueryField.suggestion(for: name).map { "did you mean `\($0)`?" }
        throw error(
            at: token, "unknown field `\(name)`",
            hint: hint ?? "fields are listed by `qbarchive search --help`; to search for the text, put it in quotes")
    }

    mutating func predicate(field token: QueryToken, name: String) throws(QueryError) -> QueryPredicate {
        let field = try field(token, name)
        guard let opToken = advance() else { throw error(at: nil, "expected an operator") }
        let op: QueryOperator
        switch opToken.kind {
        case .comparison(let comparison): op = comparison
        default: op = QueryOperator(rawValue: opToken.keyword ?? "") ?? .equal
        }
        try check(op, on: field, at: opToken)
        var raw: [(text: String, quoted: Bool, token: QueryToken)] = []
        if op.takesList || (op == .in && field.isDate) {
            let parenthesised = peek?.kind == .openParenthesis
            let open = parenthesised ? advance() : nil
            repeat {
                if peek?.kind == .comma { index += 1 }
                guard let value = try valueToken(after: opToken) else {
                    throw error(at: peek, "empty list after `\(op.rawValue)`", hint: "give at least one value")
                }
                raw.append(value)
            } while peek?.kind == .comma
            if let open {
                guard peek?.kind == .closeParenthesis else {
                    throw error(at: open, "unbalanced `(` in the list", hint: "close the list with `)`")
                }
                index += 1
            }
        } else {
            guard let value = try valueToken(after: opToken) else {
                throw error(at: opToken, "`\(op.rawValue)` needs a value after it")
            }
            raw.append(value)
        }
        if field.isDate, raw.count > 1 {
            throw error(at: raw[1].token, "a date field takes one date or period", hint: "use `or` for several")
        }
        let values = try raw.map { (value) throws(QueryError) in
            try convert(value.text, quoted: value.quoted, for: field, at: value.token)
        }
        let last = tokens[index - 1].range.upperBound  // the last value, or the list's `)`
        return QueryPredicate(field: field, op: op, values: values, range: token.range.lowerBound..<last)
    }

    /// The next bare or quoted value; `nil` at a `)` (an empty list).
    private mutating func valueToken(after op: QueryToken) throws(QueryError) -> (
        text: String, quoted: Bool, token: QueryToken
    )? {
        guard let token = peek else { return nil }
        switch token.kind {
        case .word(let text):
            index += 1
            return (text, false, token)
        case .quoted(let text):
            index += 1
            return (text, true, token)
        case .closeParenthesis: return nil
        default: throw error(at: token, "expected a value after `\(opName(op))`")
        }
    }

    private func opName(_ token: QueryToken) -> String {
        if case .comparison(let op) = token.kind { return op.rawValue }
        return token.keyword ?? "operator"
    }

    private func check(_ op: QueryOperator, on field: QueryField, at token: QueryToken) throws(QueryError) {
        guard !field.operators.contains(op) else { return }
        let allowed = field.operators.map(\.rawValue).joined(separator: ", ")
        throw error(at: token, "`\(op.rawValue)` is not allowed on `\(field.name)`", hint: "use \(allowed)")
    }

    /// `field[op]=value[,value]`: QuickBlox's own filter syntax, values percent-decoded.
    mutating func restPredicate(_ token: QueryToken, field name: String, op rest: String, raw: String)
        throws(QueryError)
        -> QueryPredicate
    {
        let field = try field(token, name)
        guard let op = QueryOperator.allCases.first(where: { $0.restName == rest && !rest.isEmpty }) else {
            throw error(
                at: token, "unknown operator `[\(rest)]`", hint: "use lt, lte, gt, gte, ne, in, nin, all or ctn")
        }
        try check(op, on: field, at: token)
        let pieces = op.takesList && !field.isDate ? raw.split(separator: ",").map(String.init) : [raw]
        let texts = pieces.map { QueryLexer.percentDecoded($0).trimmingCharacters(in: .whitespaces) }
        guard !texts.isEmpty, !texts.contains(where: \.isEmpty) else {
            throw error(at: token, "`\(name)[\(rest)]` needs a value after `=`")
        }
        let values = try texts.map { (text) throws(QueryError) in
            try convert(text, quoted: false, for: field, at: token)
        }
        return QueryPredicate(field: field, op: op, values: values, range: token.range)
    }

    /// Types a value for its field.
    private func convert(_ text: String, quoted: Bool, for field: QueryField, at token: QueryToken) throws(QueryError)
        -> QueryValue
    {
        switch field {
        case .message, .dialog, .dialogName, .attachmentType:
            return .string(text)
        case .senderID, .recipientID:
            if let id = Int(text) { return .int(id) }
            guard !text.isEmpty else { throw error(at: token, "an empty user") }
            return .login(text)
        case .readIDs, .occupantsIDs:
            guard let id = Int(text) else {
                throw error(at: token, "`\(text)` is not a user id", hint: "\(field.name) takes numeric user ids")
            }
            return .int(id)
        case .dialogType:
            switch text.lowercased() {
            case "public", "1": return .int(1)
            case "group", "2": return .int(2)
            case "private", "3": return .int(3)
            default: throw error(at: token, "`\(text)` is not a dialog type", hint: "use private, group or public")
            }
        case .dateSent, .updatedAt:
            guard let period = QueryDate.period(text, now: now) else {
                throw error(at: token, "`\(text)` is not a date", hint: QueryDate.hint)
            }
            return .period(start: period.start, end: period.end)
        case .hasAttachment:
            guard ["attachment", "attachments"].contains(text.lowercased()) else {
                throw error(at: token, "`has:` takes `attachment`", hint: "write has:attachment")
            }
            return .bool(true)
        case .edited, .deleted:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw error(at: token, "`\(text)` is not true or false", hint: "write \(field.name) = true")
            }
        case .custom:
            if !quoted, let number = Int(text) { return .int(number) }
            return .string(text)
        }
    }
}
