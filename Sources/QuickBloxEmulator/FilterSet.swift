import Foundation
import QuickBlox

/// The filters of one list request, parsed and typed, evaluated the way QuickBlox's MongoDB does.
///
/// Every filter must hold, except that all `[or]` filters together form one disjunction
/// (`name[or]=sam,igor&lastname[or]=johnson`). On array fields `=` means "contains", `all`
/// "contains every", `in` "shares one"; `ctn` is a case-insensitive substring test.
struct FilterSet: Sendable {
    struct Condition: Sendable {
        var field: String
        var op: FilterOperator
        var ints: [Int]
        var strings: [String]
        var isNumeric: Bool
    }

    var conditions: [Condition] = []
    var alternatives: [Condition] = []

    /// Parses `filters`; a value that does not fit its field is a 400 naming the parameter.
    init(_ filters: [Filter], kind: (String) -> FieldKind) throws(EmulatorError) {
        for filter in filters {
            let fieldKind = kind(filter.field)
            var condition = Condition(
                field: filter.field, op: filter.op, ints: [], strings: filter.values, isNumeric: false)
            if fieldKind != .text, filter.op != .contains {
                condition.isNumeric = true
                for value in filter.values {
                    guard let number = Self.number(value, kind: fieldKind) else {
                        throw EmulatorError.badRequest("Invalid value '\(value)' for \(filter.key)")
                    }
                    // Fields are whole numbers: a fraction is compared as given by moving the bound to the
                    // integer that keeps the same answers (`gt 10.5` ≡ `gt 10`, `gte 10.5` ≡ `gte 11`); in a
                    // set or an equality it matches nothing and is dropped.
                    if let integer = Self.integer(number, for: filter.op) { condition.ints.append(integer) }
                }
            }
            if filter.op == .or { alternatives.append(condition) } else { conditions.append(condition) }
        }
    }

    static func number(_ text: String, kind: FieldKind) -> Double? {
        if let value = Int(text) { return Double(value) }
        if let value = Double(text), value.isFinite, abs(value) < 9e15 { return value }
        if kind == .timestamp { return ISO8601.parse(text).map(Double.init) }
        return nil
    }

    /// The integer bound that selects the same whole numbers as `number` does under `op`; `nil` when
    /// `number` has a fraction and `op` tests equality or membership (no whole number equals it).
    static func integer(_ number: Double, for op: FilterOperator) -> Int? {
        if number == number.rounded() { return Int(number) }
        switch op {
        case .greaterThan, .lessThanOrEqual: return Int(number.rounded(.down))
        case .greaterThanOrEqual, .lessThan: return Int(number.rounded(.up))
        default: return nil
        }
    }

    var isEmpty: Bool { conditions.isEmpty && alternatives.isEmpty }

    func matches(_ value: (String) -> FieldValue) -> Bool {
        for condition in conditions where !Self.holds(condition, value(condition.field)) { return false }
        if alternatives.isEmpty { return true }
        return alternatives.contains { Self.holds($0, value($0.field)) }
    }

    static func holds(_ condition: Condition, _ value: FieldValue) -> Bool {
        switch value {
        case .missing:
            return condition.op == .notEqual || condition.op == .notIn
        case .int(let number):
            return holds(condition, scalars: [number], isArray: false)
        case .ints(let numbers):
            return holds(condition, scalars: numbers, isArray: true)
        case .string(let text):
            return holds(condition, strings: [text], isArray: false)
        case .strings(let texts):
            return holds(condition, strings: texts, isArray: true)
        }
    }

    private static func holds(_ condition: Condition, scalars: [Int], isArray: Bool) -> Bool {
        guard condition.isNumeric else {
            return holds(condition, strings: scalars.map(String.init), isArray: isArray)
        }
        return evaluate(condition.op, have: scalars, want: condition.ints, isArray: isArray, contains: nil)
    }

    private static func holds(_ condition: Condition, strings: [String], isArray: Bool) -> Bool {
        let contains: (String, String) -> Bool = { $0.range(of: $1, options: .caseInsensitive) != nil }
        if condition.isNumeric {
            // A numeric filter on a text value (custom parameters are strings): compare as numbers where possible.
            let numbers = strings.compactMap { Int($0) }
            return evaluate(condition.op, have: numbers, want: condition.ints, isArray: isArray, contains: nil)
        }
        return evaluate(condition.op, have: strings, want: condition.strings, isArray: isArray, contains: contains)
    }

    private static func evaluate<T: Comparable>(
        _ op: FilterOperator, have: [T], want: [T], isArray: Bool, contains: ((T, T) -> Bool)?
    ) -> Bool {
        guard let first = want.first else { return op == .notIn || op == .notEqual }
        switch op {
        case .equal: return have.contains(first)
        case .notEqual: return !have.contains(first)
        case .lessThan: return have.contains { $0 < first }
        case .lessThanOrEqual: return have.contains { $0 <= first }
        case .greaterThan: return have.contains { $0 > first }
        case .greaterThanOrEqual: return have.contains { $0 >= first }
        case .in, .or: return have.contains { want.contains($0) }
        case .notIn: return !have.contains { want.contains($0) }
        case .all: return want.allSatisfy { have.contains($0) }
        case .contains:
            guard let contains else { return false }
            return have.contains { contains($0, first) }
        }
    }
}
