import Archive
import Foundation
import QueryLanguage
import QuickBlox
import Synchronization
import TextIndex

/// An independent, in-memory reading of the query language, written from the documented semantics
/// (docs/query-language.md) without looking at SQL: the differential test compares it with the archive.
package struct ReferenceEvaluator {
    package var users: [User]
    package var dialogs: [Dialog]
    /// The units of every text read so far: a differential test asks about the same few hundred messages for
    /// hundreds of queries, and reading them again each time was most of those suites' time.
    private let memo = UnitMemo()

    package init(users: [User], dialogs: [Dialog] = []) {
        self.users = users
        self.dialogs = dialogs
    }

    package func matches(_ expression: QueryExpression, _ entry: SearchCorpus.Entry) -> Bool {
        switch expression {
        case .and(let children): return children.allSatisfy { matches($0, entry) }
        case .or(let children): return children.contains { matches($0, entry) }
        case .not(let child): return !matches(child, entry)
        case .text(let term): return textMatches(term, entry.message.text)
        case .predicate(let predicate): return matches(resolved(predicate), entry)
        }
    }

    /// A name as a person types it, compared case- and accent-insensitively, word by word.
    private func folded(_ text: String) -> String {
        memo.units(of: text).map(\.text).joined(separator: " ")
    }

    /// The predicate with the names it gives replaced by what they name (docs/query-language.md): a login, or
    /// else every user whose login or full name is the same words; a dialog id, or else every dialog of that
    /// name. Several of them under `=` or `!=` mean any or none of them.
    private func resolved(_ predicate: QueryPredicate) -> QueryPredicate {
        var resolved = predicate
        resolved.values = predicate.values.flatMap { value -> [QueryValue] in
            switch (predicate.field, value) {
            case (_, .login(let text)):
                if let user = users.first(where: { $0.login == text }) { return [.int(user.id)] }
                return users.filter { [$0.login, $0.fullName].contains { $0.map(folded) == folded(text) } }
                    .map { .int($0.id) }
            case (.dialog, .string(let text)):
                if dialogs.contains(where: { $0.id == text }) || dialogs.isEmpty { return [value] }
                return dialogs.filter { $0.name.map(folded) == folded(text) }.map { .string($0.id) }
            default:
                return [value]
            }
        }
        if resolved.values.count > 1, predicate.op == .equal { resolved.op = .in }
        if resolved.values.count > 1, predicate.op == .notEqual { resolved.op = .notIn }
        return resolved
    }

    /// A searchable unit of a text, by the rules of docs/query-language.md ("Words in every script"): a word
    /// (folded, with the remainders after its Arabic or Hebrew prefixes), a symbol, or one character of a run
    /// of a script written without spaces (`run` tells which run).
    package struct Unit: Equatable, Sendable {
        package var text: String
        package var run: Int?
        package var remainders: [String] = []
    }

    /// The units of `text`, read Character by Character (no fast path, no index tokens).
    package static func units(_ text: String) -> [Unit] {
        var folder = WordFolder()
        var units: [Unit] = []
        var pending = ""
        var pendingKind = WordSegmenter.Kind.separator
        var runs = 0
        func flush() {
            defer { pending = "" }
            guard !pending.isEmpty else { return }
            let folded = folder.fold(pending)
            if pendingKind == .word, !folded.isEmpty {
                units.append(Unit(text: folded, run: nil, remainders: AffixVariants.remainders(of: folded)))
            } else if pendingKind == .unspaced, !folded.isEmpty {
                runs += 1
                units += folded.map { Unit(text: String($0), run: runs) }
            }
        }
        for character in text {
            let kind = WordSegmenter.kind(of: character)
            if kind == .ignored { continue }  // invisible inside a word
            if kind != pendingKind || kind == .symbol { flush() }
            pendingKind = kind
            switch kind {
            case .word, .unspaced: pending.append(character)
            case .symbol:
                let symbol = WordFolder.foldSymbol(String(character))
                if !symbol.isEmpty { units.append(Unit(text: symbol, run: nil)) }
            case .separator, .ignored: break
            }
        }
        flush()
        return units
    }

    /// Whether a query term matches `text`: its units appear consecutively among the text's, each equal to a
    /// text unit or to one of that unit's prefix remainders (a prefix term's last unit may start one), and
    /// characters that stand together in a run of the query stand together in one run of the text.
    private func textMatches(_ term: TextTerm, _ text: String?) -> Bool {
        guard let text else { return false }
        let haystack = memo.units(of: text)
        let needle = memo.units(of: term.text)
        guard !needle.isEmpty, needle.count <= haystack.count else { return false }
        func same(_ a: String, _ b: String, prefix: Bool) -> Bool {
            prefix ? a.unicodeScalars.starts(with: b.unicodeScalars) : a.unicodeScalars.elementsEqual(b.unicodeScalars)
        }
        for start in 0...(haystack.count - needle.count) {
            let matched = needle.indices.allSatisfy { index in
                let unit = haystack[start + index]
                let wanted = needle[index]
                let prefix = term.kind == .prefix && index == needle.count - 1
                guard ([unit.text] + unit.remainders).contains(where: { same($0, wanted.text, prefix: prefix) }) else {
                    return false
                }
                if index > 0, let run = wanted.run, run == needle[index - 1].run {
                    return unit.run != nil && unit.run == haystack[start + index - 1].run
                }
                return true
            }
            if matched { return true }
        }
        return false
    }

    private static func contains(_ text: String?, _ pattern: String) -> Bool {
        guard let text else { return false }
        return ContainsFolding.contains(text, pattern)
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
        case .hasLink:
            let linked = ["http://", "https://", "www."].contains { Self.contains(message.text, $0) }
            return flag(linked, predicate)
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
                guard let a = Self.number(message.extra[key]), let b = predicate.values.first.flatMap(Self.number)
                else { return false }
                switch predicate.op {
                case .lessThan: return a < b
                case .lessThanOrEqual: return a <= b
                case .greaterThan: return a > b
                default: return a >= b
                }
            }
            return scalar(stored, textual)
        }
    }
}

extension ReferenceEvaluator {
    /// The documented number grammar of custom parameters, as a regular expression (not ``CustomNumber``'s scanner).
    private static let numberPattern = try! NSRegularExpression(
        pattern: #"^[ \t\n\r\f\x{0B}]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[ \t\n\r\f\x{0B}]*$"#)

    /// A custom parameter as a number: a JSON number, or a string that is wholly one; booleans and other text are none.
    fileprivate static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        case .string(let text): return number(text)
        default: return nil
        }
    }

    fileprivate static func number(_ value: QueryValue) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .string(let text): return number(text)
        default: return nil
        }
    }

    private static func number(_ text: String) -> Double? {
        let whole = NSRange(text.startIndex..., in: text)
        guard numberPattern.firstMatch(in: text, range: whole) != nil,
            let value = Double(text.trimmingCharacters(in: .whitespacesAndNewlines)), value.isFinite
        else { return nil }
        return value
    }
}

/// Memoised ``ReferenceEvaluator/units(_:)``: the function is pure, so a text's units are read once.
private final class UnitMemo: Sendable {
    private let known = Mutex<[String: [ReferenceEvaluator.Unit]]>([:])

    func units(of text: String) -> [ReferenceEvaluator.Unit] {
        if let units = known.withLock({ $0[text] }) { return units }
        let units = ReferenceEvaluator.units(text)
        known.withLock { $0[text] = units }
        return units
    }
}
