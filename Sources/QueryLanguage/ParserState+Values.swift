import Foundation
import QuickBlox

/// Typing a value for its field.
extension ParserState {
    /// `text` as a value of `field`, or an error at `range` saying what the field takes.
    func value(_ text: String, quoted: Bool, for field: QueryField, at range: Range<Int>) throws(QueryError)
        -> QueryValue
    {
        let shown = QueryError.excerpt(text)
        switch field {
        case .message, .dialog, .dialogName, .attachmentType:
            return .string(text)
        case .senderID, .recipientID, .hiddenFor:
            // Spaces around a listed value (`sender_id[in]=1,%202`) are no part of an id or a login.
            // Digits name an id; in quotes they are a login (`from:"447700900123"`, a phone number as login).
            let text = text.trimmingCharacters(in: .whitespaces)
            if !quoted, let id = Int(text) { return .int(id) }
            guard !text.isEmpty else { throw error(at: range, "an empty login", hint: "give a user id or a login") }
            if !quoted, text.allSatisfy({ $0.isASCII && $0.isNumber }) {
                throw error(at: range, "`\(shown)` is too large for a user id", hint: "user ids have at most 18 digits")
            }
            return .login(text)
        case .readIDs, .occupantsIDs:
            let text = text.trimmingCharacters(in: .whitespaces)
            guard let id = Int(text) else {
                throw error(at: range, "`\(shown)` is not a user id", hint: "`\(field.name)` takes numeric user ids")
            }
            return .int(id)
        case .dialogType:
            switch text.lowercased() {
            case "public", "1": return .int(1)
            case "group", "2": return .int(2)
            case "private", "3": return .int(3)
            default:
                throw error(
                    at: range, "`\(shown)` is not a dialog type", hint: "use private, group or public (3, 2, 1)")
            }
        case .dateSent, .updatedAt:
            guard let period = QueryDate.period(text, now: now, zone: zone) else {
                let hint = QueryDate.isSmallNumber(text) ? QueryDate.smallNumberHint : QueryDate.hint
                throw error(at: range, "`\(shown)` is not a date", hint: hint)
            }
            return .period(start: period.start, end: period.end)
        case .edited, .deleted, .hidden, .hasAttachment, .hasLink:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default:
                throw error(
                    at: range, "`\(shown)` is not true or false",
                    hint: "use \(field.name) = true or \(field.name) = false")
            }
        case .custom:
            if !quoted, let number = Int(text) { return .int(number) }
            return .string(text)
        }
    }

    /// Refuses a value that cannot mean what was typed: an empty `ctn` text (every text contains it; the REST
    /// form `message[ctn]=` is refused too), and a bound of `<`, `<=`, `>` and `>=` on a custom parameter that
    /// is no number (``CustomNumber``: it would match nothing, or in SQLite every text read as 0).
    func checkNumber(_ value: QueryValue, for field: QueryField, op: FilterOperator, at range: Range<Int>)
        throws(QueryError)
    {
        if op == .contains, case .string(let text) = value, text.isEmpty {
            throw error(
                at: range, "an empty text after `ctn`", hint: "every text contains it: give the text to look for")
        }
        guard case .custom = field, [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(op),
            case .string(let text) = value, CustomNumber.value(of: text) == nil
        else { return }
        throw error(
            at: range, "`\(QueryError.excerpt(text))` is not a number",
            hint: "`<`, `<=`, `>` and `>=` compare \(field.name) as a number; use `=` or `ctn` to compare text")
    }
}
