import Foundation
import QuickBlox

/// Refuses a query that can match nothing whatever the archive holds: terms of one `and` that contradict each
/// other — a date range that ends before it starts (`after:2025-01-01 before:2024-01-01`), two senders, two
/// dialog types, a flag both set and unset, a term and its negation. Such a query is a mistake, and answering
/// it with "no results" would read as "no such messages".
public enum QueryConsistency {
    static func check(_ expression: QueryExpression, source: [Character], zone: TimeZone) throws(QueryError) {
        switch expression {
        case .and(let children):
            try conjunction(children, source: source, zone: zone)
            for child in children { try check(child, source: source, zone: zone) }
        case .or(let children):
            for child in children { try check(child, source: source, zone: zone) }
        case .not(let child):
            try check(child, source: source, zone: zone)
        case .text, .predicate:
            break
        }
    }

    private static func conjunction(_ children: [QueryExpression], source: [Character], zone: TimeZone)
        throws(QueryError)
    {
        func conflict(_ first: Range<Int>?, _ second: Range<Int>?, _ why: String, hint: String) -> QueryError {
            Self.conflict(first, second, why, hint: hint, source: source)
        }
        let predicates = children.compactMap { if case .predicate(let p) = $0 { p } else { nil } }
        // Dates: the latest start against the earliest end, per field.
        for field in [QueryField.dateSent, .updatedAt] {
            var lower: (Int, QueryPredicate)?
            var upper: (Int, QueryPredicate)?
            for predicate in predicates where predicate.field == field {
                guard case .period(let start, let end) = predicate.values.first else { continue }
                var from: Int?
                var to: Int?
                switch predicate.op {
                case .greaterThan: from = end
                case .greaterThanOrEqual: from = start
                case .lessThan: to = start
                case .lessThanOrEqual: to = end
                case .equal, .in: (from, to) = (start, end)
                default: break
                }
                if let from, from > (lower?.0 ?? .min) { lower = (from, predicate) }
                if let to, to < (upper?.0 ?? .max) { upper = (to, predicate) }
            }
            if let (from, first) = lower, let (to, second) = upper, from >= to {
                throw conflict(
                    first.range, second.range,
                    "no time is left between \(QueryDate.describe(from, zone: zone)) and "
                        + "\(QueryDate.describe(to, zone: zone))",
                    hint: first.range == second.range
                        ? "put the earlier date first" : "check the dates, or join the two with `or` for either one")
            }
        }
        // One sender, one recipient, one dialog type per message.
        try oneEach(of: [.senderID, .recipientID, .dialogType], in: predicates, source: source) { _, value in
            if case .int(let id) = value { [String(id)] } else { nil }
        }
        // A flag set and unset.
        var flags: [QueryField: (Bool, QueryPredicate)] = [:]
        for predicate in predicates
        where [.edited, .deleted, .hidden, .hasAttachment, .hasLink].contains(predicate.field) {
            guard case .bool(let value) = predicate.values.first else { continue }
            let wanted = value != (predicate.op == .notEqual)
            if let (earlier, first) = flags[predicate.field], earlier != wanted {
                throw conflict(
                    first.range, predicate.range, "one asks for what the other excludes",
                    hint: "keep one of them, or join them with `or`")
            }
            flags[predicate.field] = (wanted, predicate)
        }
        // A term and its negation.
        for child in children {
            guard case .not(let negated) = child else { continue }
            if let same = children.first(where: { Self.sameTerm($0, negated) }) {
                throw conflict(
                    same.sourceRange, child.sourceRange, "one excludes what the other asks for",
                    hint: "remove one of them")
            }
        }
    }

    /// Refuses two `=`/`in` predicates of one `and` on any of `fields` whose values share no key: a message has
    /// one sender, recipient, dialog and dialog type. `keys` gives a value's keys; a predicate with a value it has
    /// none for (`nil`) is left out.
    private static func oneEach(
        of fields: [QueryField], in predicates: [QueryPredicate], source: [Character],
        keys: (QueryField, QueryValue) -> [String]?
    ) throws(QueryError) {
        for field in fields {
            var allowed: (Set<String>, QueryPredicate)?
            for predicate in predicates where predicate.field == field && [.equal, .in].contains(predicate.op) {
                let perValue = predicate.values.map { keys(field, $0) }
                guard !perValue.contains(where: { $0 == nil }) else { continue }
                let found = Set(perValue.compactMap { $0 }.joined())
                guard let (earlier, first) = allowed else {
                    allowed = (found, predicate)
                    continue
                }
                let both = earlier.intersection(found)
                if both.isEmpty {
                    throw conflict(
                        first.range, predicate.range, "a message has one \(noun(field))",
                        hint: "join them with `or` for either one", source: source)
                }
                allowed = (both, first)
            }
        }
    }

    /// The error for two terms that cannot both hold (or one that can match nothing), at the later of them.
    private static func conflict(
        _ first: Range<Int>?, _ second: Range<Int>?, _ why: String, hint: String, source: [Character]
    ) -> QueryError {
        func shown(_ range: Range<Int>?) -> String {
            guard let range, range.lowerBound >= 0, range.upperBound <= source.count else { return "a term" }
            return "`" + QueryError.excerpt(String(source[range])) + "`"
        }
        let later = [first, second].compactMap { $0 }.max { $0.lowerBound < $1.lowerBound } ?? 0..<0
        return QueryError(
            position: later.lowerBound, length: later.count,
            message: first == second
                ? "\(shown(first)) can match nothing: \(why)"
                : "\(shown(first)) and \(shown(second)) cannot both hold: \(why)",
            hint: hint)
    }

    private static func noun(_ field: QueryField) -> String {
        switch field {
        case .senderID: "sender"
        case .recipientID: "recipient"
        case .dialog: "dialog"
        default: "dialog type"
        }
    }

    /// Refuses, as ``check(_:source:zone:)`` does for ids, two senders, recipients or dialogs of one `and` named
    /// by login, name or id that stand for no one in common once the archive has resolved them
    /// (`from:alice from:bob`, `in:"Book club" in:general`). `ids` gives what a value stands for; `nil` leaves
    /// the predicate out.
    public static func checkResolved(
        _ expression: QueryExpression, source: [Character], ids: (QueryField, QueryValue) -> [String]?
    ) throws(QueryError) {
        switch expression {
        case .and(let children):
            let predicates = children.compactMap { if case .predicate(let p) = $0 { p } else { nil } }
            try oneEach(of: [.senderID, .recipientID, .dialog], in: predicates, source: source, keys: ids)
            for child in children { try checkResolved(child, source: source, ids: ids) }
        case .or(let children):
            for child in children { try checkResolved(child, source: source, ids: ids) }
        case .not(let child):
            try checkResolved(child, source: source, ids: ids)
        case .text, .predicate:
            break
        }
    }

    /// Whether two expressions are the same term, wherever they were written.
    static func sameTerm(_ a: QueryExpression, _ b: QueryExpression) -> Bool {
        switch (a, b) {
        case (.text(let x), .text(let y)): return x.kind == y.kind && x.text == y.text
        case (.predicate(let x), .predicate(let y)): return x.field == y.field && x.op == y.op && x.values == y.values
        default: return false
        }
    }
}
