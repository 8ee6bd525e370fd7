import Foundation
import QuickBlox

/// A ``Redaction`` compiled for one export: replaces matches in texts and in every string of JSON
/// documents, and counts what it replaced (the manifest and the audit log say how many of each).
///
/// A class because it counts as it goes; one export uses it from one task at a time.
final class Redactor {
    private let rules: [(key: String, replacement: String, expression: NSRegularExpression, kind: Redaction.Kind?)]
    /// Matches replaced so far, by kind (`emails`, `phones`, `urls`, `patterns`).
    private(set) var counts: [String: Int] = [:]

    init(_ redaction: Redaction) {
        var rules: [(String, String, NSRegularExpression, Redaction.Kind?)] = []
        for kind in redaction.kinds {
            // The built-in patterns are constants covered by tests; one that failed to compile would be a bug.
            guard let expression = try? NSRegularExpression(pattern: kind.pattern) else { continue }
            rules.append((kind.rawValue, kind.replacement, expression, kind))
        }
        for pattern in redaction.patterns {
            // Checked by Redaction's initialiser.
            guard let expression = try? NSRegularExpression(pattern: pattern) else { continue }
            rules.append(("patterns", "[redacted]", expression, nil))
        }
        self.rules = rules
    }

    /// The text with every match replaced.
    func redact(_ text: String) -> String {
        guard !text.isEmpty else { return text }
        var text = text
        for rule in rules {
            let source = text as NSString
            let matches = rule.expression.matches(in: text, range: NSRange(location: 0, length: source.length))
            guard !matches.isEmpty else { continue }
            var result = ""
            var position = 0
            var replaced = 0
            for match in matches where match.range.length > 0 && match.range.location >= position {
                var range = match.range
                if rule.kind == .phones, !Self.isPhone(source.substring(with: range)) { continue }
                if rule.kind == .urls { range = Self.balanced(range, in: source) }
                result += source.substring(with: NSRange(location: position, length: range.location - position))
                result += rule.replacement
                position = range.location + range.length
                replaced += 1
            }
            guard replaced > 0 else { continue }
            result += source.substring(from: position)
            counts[rule.key, default: 0] += replaced
            text = result
        }
        return text
    }

    /// An optional text, redacted.
    func redact(_ text: String?) -> String? { text.map { redact($0) } }

    /// A JSON document with every string in it (keys kept) redacted, written again with sorted keys; a text
    /// that is not JSON is redacted as text.
    func redactJSON(_ json: String) -> String {
        guard !rules.isEmpty, let value = try? JSONValue(parsing: json) else { return redact(json) }
        let redacted = redact(value)
        return redacted == value ? json : redacted.jsonString
    }

    /// Every string in the value, redacted.
    func redact(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(redact(text))
        case .array(let items): .array(items.map { redact($0) })
        case .object(let members): .object(members.mapValues { redact($0) })
        default: value
        }
    }

    /// What the manifest records of this export's redaction: the rules and how many matches each replaced.
    func manifestEntry(_ redaction: Redaction) -> JSONValue {
        guard case .object(var entry) = redaction.manifestEntry else { return redaction.manifestEntry }
        entry["replaced"] = .object(counts.mapValues(JSONValue.int))
        return .object(entry)
    }

    /// A URL's match, extended over closing parentheses that balance opening ones inside it (the pattern
    /// leaves a final `)` out, as it usually closes a sentence's parenthesis).
    static func balanced(_ range: NSRange, in source: NSString) -> NSRange {
        var range = range
        let open = UInt16(UInt8(ascii: "("))
        let close = UInt16(UInt8(ascii: ")"))
        var depth = 0
        for index in range.location..<(range.location + range.length) {
            let unit = source.character(at: index)
            if unit == open { depth += 1 } else if unit == close { depth -= 1 }
        }
        while depth > 0, range.location + range.length < source.length,
            source.character(at: range.location + range.length) == close
        {
            range.length += 1
            depth -= 1
        }
        return range
    }

    /// Whether a candidate of the phone pattern is one: 7 to 15 digits (E.164's longest), and not a date
    /// (`2024-03-01`, `01.03.2024`) or an IPv4 address, which the pattern's shape also fits.
    static func isPhone(_ candidate: String) -> Bool {
        let digits = candidate.unicodeScalars.filter { $0.properties.numericType == .decimal }.count
        guard (7...15).contains(digits) else { return false }
        let shapes = [
            #"^\d{4}[-./\x{2010}-\x{2015}]\d{1,2}[-./\x{2010}-\x{2015}]\d{1,2}"#,
            #"^\d{1,2}[-./\x{2010}-\x{2015}]\d{1,2}[-./\x{2010}-\x{2015}]\d{4}$"#, #"^\d{1,3}(\.\d{1,3}){3}$"#,
        ]
        return !shapes.contains { candidate.range(of: $0, options: .regularExpression) != nil }
    }
}
