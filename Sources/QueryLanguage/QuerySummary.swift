import Foundation
import QuickBlox

/// How a query was understood, in one line a person can check: `word "refund" AND sent before 2024-01-01 00:00
/// UTC AND sender alice (user 7)`.
///
/// `search --explain` prints it first, and a search that finds nothing prints it on standard error, so that
/// "no results" always comes with what was searched for. Values the archive resolves (logins, names, dialog
/// names) are shown as it resolved them, through `name`.
public enum QuerySummary {
    /// Describes a value the archive resolved (a user or a dialog), or returns `nil` to show it as typed.
    public typealias Namer = (QueryField, QueryValue) -> String?

    /// The one-line reading of `query`, dates in `zone`.
    public static func describe(_ query: Query, zone: TimeZone = QueryDate.utc, name: Namer = { _, _ in nil })
        -> String
    {
        describe(query.root, zone: zone, name: name)
    }

    static func describe(_ expression: QueryExpression, zone: TimeZone, name: Namer) -> String {
        func nested(_ child: QueryExpression) -> String {
            let text = describe(child, zone: zone, name: name)
            switch child {
            case .and, .or: return "(" + text + ")"
            default: return text
            }
        }
        switch expression {
        case .and(let children): return children.map(nested).joined(separator: " AND ")
        case .or(let children): return children.map(nested).joined(separator: " OR ")
        case .not(let child): return "NOT " + nested(child)
        case .text(let term):
            switch term.kind {
            case .word: return "word \(quoted(term.text))"
            case .prefix: return "a word starting with \(quoted(term.text))"
            case .phrase: return "phrase \(quoted(term.text))"
            }
        case .predicate(let predicate): return describe(predicate, zone: zone, name: name)
        }
    }

    private static func quoted(_ text: String) -> String {
        "\"" + QueryError.visible(text.count > 60 ? String(text.prefix(59)) + "…" : text) + "\""
    }

    private static func describe(_ predicate: QueryPredicate, zone: TimeZone, name: Namer) -> String {
        let field = predicate.field
        let op = predicate.op
        func value(_ value: QueryValue) -> String {
            if let named = name(field, value) { return named }
            switch value {
            case .int(let number):
                switch field {
                case .senderID, .recipientID, .hiddenFor, .readIDs, .occupantsIDs: return "user \(number)"
                case .dialogType: return dialogType(number)
                default: return String(number)
                }
            case .string(let text), .login(let text): return quoted(text)
            case .bool(let flag): return flag ? "true" : "false"
            case .period(let start, let end): return period(start, end, zone: zone)
            }
        }
        let values = predicate.values.map(value)
        let list = values.count == 1 ? values[0] : "one of " + values.joined(separator: ", ")
        let flag = predicate.values.first == .bool(true) ? op != .notEqual : op == .notEqual
        switch field {
        case .hasAttachment: return flag ? "has an attachment" : "has no attachment"
        case .hasLink: return flag ? "has a link" : "has no link"
        case .edited: return flag ? "edited" : "not edited"
        case .deleted: return flag ? "deleted for everyone" : "not deleted for everyone"
        case .hidden: return flag ? "hidden for someone" : "hidden for no one"
        case .dateSent, .updatedAt:
            guard case .period(let start, let end) = predicate.values.first else { return "\(field.name) ?" }
            let verb = field == .dateSent ? "sent" : "updated"
            switch op {
            case .lessThan: return "\(verb) before \(QueryDate.describe(start, zone: zone))"
            case .lessThanOrEqual: return "\(verb) before \(QueryDate.describe(end, zone: zone))"
            case .greaterThan: return "\(verb) at or after \(QueryDate.describe(end, zone: zone))"
            case .greaterThanOrEqual: return "\(verb) at or after \(QueryDate.describe(start, zone: zone))"
            case .notEqual, .notIn: return "not \(verb) \(period(start, end, zone: zone))"
            default: return "\(verb) \(period(start, end, zone: zone))"
            }
        default:
            break
        }
        let subject: String
        switch field {
        case .readIDs, .occupantsIDs, .hiddenFor:
            let verb = field == .readIDs ? "read by" : field == .hiddenFor ? "hidden for" : "occupants include"
            switch op {
            case .equal: return "\(verb) \(list)"
            case .in, .or: return "\(verb) one of " + values.joined(separator: ", ")
            case .notEqual, .notIn: return "\(verb) none of " + values.joined(separator: ", ")
            case .all: return "\(verb) all of " + values.joined(separator: ", ")
            default: subject = field == .readIDs ? "a reader's id" : "an occupant's id"
            }
        case .message: subject = "text"
        case .senderID: subject = "sender"
        case .recipientID: subject = "recipient"
        case .dialog: subject = "dialog"
        case .dialogType: subject = "dialog type"
        case .dialogName: subject = "dialog name"
        case .attachmentType: subject = "an attachment's type"
        default: subject = field.name
        }
        switch op {
        case .equal, .in, .or: return "\(subject) is \(list)"
        case .notEqual: return "\(subject) is not \(list)"
        case .notIn: return "\(subject) is none of " + values.joined(separator: ", ")
        case .all: return "\(subject) all of " + values.joined(separator: ", ")
        case .contains: return "\(subject) contains \(list)"
        case .lessThan: return "\(subject) < \(list)"
        case .lessThanOrEqual: return "\(subject) ≤ \(list)"
        case .greaterThan: return "\(subject) > \(list)"
        case .greaterThanOrEqual: return "\(subject) ≥ \(list)"
        }
    }

    private static func dialogType(_ number: Int) -> String {
        switch number {
        case 1: "public"
        case 2: "group"
        case 3: "private"
        default: "type \(number)"
        }
    }

    /// `[start, end)` as words: "on 2024-03-01", "in 2024-03", "in 2024", or "from … until …".
    static func period(_ start: Int, _ end: Int, zone: TimeZone) -> String {
        if end == start + 1 { return "at \(QueryDate.describe(start, zone: zone))" }
        return "from \(QueryDate.describe(start, zone: zone)) until \(QueryDate.describe(end, zone: zone))"
    }
}
