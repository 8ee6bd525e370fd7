import Archive
import Foundation
import QueryLanguage
import QuickBlox

/// An independent, in-memory reading of the query language, written from the documented semantics
/// (docs/query-language.md) without looking at SQL: the differential test compares it with the archive.
package struct ReferenceEvaluator {
    package var users: [User]

    package init(users: [User]) {
        self.users = users
    }

    package func matches(_ expression: QueryExpression, _ entry: SearchCorpus.Entry) -> Bool {
        switch expression {
        case .and(let children): return children.allSatisfy { matches($0, entry) }
        case .or(let children): return children.contains { matches($0, entry) }
        case .not(let child): return !matches(child, entry)
        case .text(let term): return textMatches(term, entry.message.text)
        case .predicate(let predicate): return matches(predicate, entry)
        }
    }

    /// FTS5 `unicode61 remove_diacritics 2`: tokens are runs of letters and digits, folded.
    package static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.unicodeScalars.append(scalar)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens.map { $0.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil) }
    }

    private func textMatches(_ term: TextTerm, _ text: String?) -> Bool {
        guard let text else { return false }
        let haystack = Self.tokens(text)
        let needle = Self.tokens(term.text)
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count) {
            let window = haystack[start..<(start + needle.count)]
            let matched = zip(window, needle).enumerated().allSatisfy { index, pair in
                term.kind == .prefix && index == needle.count - 1 ? pair.0.hasPrefix(pair.1) : pair.0 == pair.1
            }
            if matched { return true }
        }
        return false
    }

    private static func contains(_ text: String?, _ pattern: String) -> Bool {
        guard let text else { return false }
        let haystack = Array(text.lowercased().unicodeScalars)
        let needle = Array(pattern.lowercased().unicodeScalars)
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    private func value(_ value: QueryValue) -> JSONValue {
        switch value {
        case .int(let number): return .int(number)
        case .string(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .login(let login): return users.first { $0.login == login }.map { .int($0.id) } ?? .null
        case .period(let start, _): return .int(start)
        }
    }

    /// A scalar field against the predicate: absent values match only `!=` and `nin`.
    private func scalar(_ field: JSONValue?, _ predicate: QueryPredicate) -> Bool {
        let values = predicate.values.map(value)
        guard let field, field != .null else { return predicate.op == .notEqual || predicate.op == .notIn }
        switch predicate.op {
        case .equal: return field == values[0]
        case .notEqual: return field != values[0]
        case .in, .all, .or: return values.contains(field)
        case .notIn: return !values.contains(field)
        case .contains: return Self.contains(field.lenientString, values[0].lenientString ?? "")
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard let a = field.lenientInt, let b = values[0].lenientInt else { return false }
            switch predicate.op {
            case .lessThan: return a < b
            case .lessThanOrEqual: return a <= b
            case .greaterThan: return a > b
            default: return a >= b
            }
        }
    }

    /// An array field: any element for `=`, `in` and comparisons; every value for `all`; none for `!=`, `nin`.
    private func elements(_ array: [JSONValue], _ predicate: QueryPredicate) -> Bool {
        func any(_ op: FilterOperator) -> Bool {
            var positive = predicate
            positive.op = op
            return array.contains { scalar($0, positive) }
        }
        switch predicate.op {
        case .notEqual: return !any(.equal)
        case .notIn: return !any(.in)
        case .all:
            return predicate.values.allSatisfy { wanted in array.contains(value(wanted)) }
        default: return any(predicate.op)
        }
    }

    private func period(_ date: Int?, _ predicate: QueryPredicate) -> Bool {
        guard case .period(let start, let end) = predicate.values.first else { return false }
        guard let date else { return predicate.op == .notEqual }
        switch predicate.op {
        case .lessThan: return date < start
        case .lessThanOrEqual: return date < end
        case .greaterThan: return date >= end
        case .greaterThanOrEqual: return date >= start
        case .notEqual, .notIn: return date < start || date >= end
        default: return date >= start && date < end
        }
    }

    private func flag(_ isSet: Bool, _ predicate: QueryPredicate) -> Bool {
        let wanted = (predicate.values.first == .bool(true)) != (predicate.op == .notEqual)
        return isSet == wanted
    }

    private func matches(_ predicate: QueryPredicate, _ entry: SearchCorpus.Entry) -> Bool {
        let message = entry.message
        switch predicate.field {
        case .message: return scalar(message.text.map(JSONValue.string), predicate)
        case .senderID: return scalar(message.senderID.map(JSONValue.int), predicate)
        case .recipientID: return scalar(message.recipientID.map(JSONValue.int), predicate)
        case .dialog: return scalar(.string(message.chatDialogID), predicate)
        case .dialogType: return scalar(.int(entry.dialog.type.rawValue), predicate)
        case .dialogName: return scalar(entry.dialog.name.map(JSONValue.string), predicate)
        case .dateSent: return period(message.dateSent, predicate)
        case .updatedAt: return period(message.updatedAt, predicate)
        case .attachmentType:
            return elements(message.attachments.map { $0.type.map(JSONValue.string) ?? .null }, predicate)
        case .hasAttachment: return flag(!message.attachments.isEmpty, predicate)
        case .readIDs: return elements(message.readIDs.map(JSONValue.int), predicate)
        case .occupantsIDs: return elements(entry.dialog.occupantIDs.map(JSONValue.int), predicate)
        case .edited: return flag(entry.edited, predicate)
        case .deleted: return flag(entry.deleted, predicate)
        case .hidden: return flag(!entry.hiddenFor.isEmpty, predicate)
        case .hiddenFor:
            let ids = predicate.values.compactMap { value -> Int? in
                if case .int(let id) = value { return id }
                return nil
            }
            let any = !Set(ids).isDisjoint(with: entry.hiddenFor)
            return [.notEqual, .notIn].contains(predicate.op) ? !any : any
        case .custom(let key):
            // Custom values compare by their text form, so 3 and "3" are the same value.
            let stored = message.extra[key].flatMap(\.lenientString).map(JSONValue.string)
            var textual = predicate
            textual.values = predicate.values.map { value in
                if case .int(let number) = value { return .string(String(number)) }
                return value
            }
            if [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].contains(predicate.op) {
                return scalar(message.extra[key], predicate)
            }
            return scalar(stored, textual)
        }
    }
}
