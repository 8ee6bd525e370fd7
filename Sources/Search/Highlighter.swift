import Foundation
import QueryLanguage
import QuickBlox
import TextIndex

/// Finds what a query matched inside a message's text, to highlight it and to centre a snippet on it.
///
/// Computed in Swift rather than with FTS5's `highlight()`: each full-text term is its own subquery, so no
/// single `MATCH` exists to highlight from. Words, prefixes and phrases are found by the word index's own rules
/// (``TextIndex/WordMatcher``: every script, case and accents folded, a word inside a Chinese or Thai run, an
/// Arabic word after its prefixes); `ctn` and `=` patterns as case-insensitive substrings.
public struct Highlighter: Sendable {
    /// The `ctn` and `=` patterns the query looks for (negated ones excluded).
    public let needles: [String]
    private let words: WordMatcher

    public init(query: Query) {
        needles = Self.needles(query.root).filter { !$0.isEmpty }
        words = WordMatcher(terms: Self.terms(query.root).map { ($0.text, $0.kind == .prefix) })
    }

    private static func terms(_ expression: QueryExpression) -> [TextTerm] {
        switch expression {
        case .and(let children), .or(let children): return children.flatMap(terms)
        case .not, .predicate: return []
        case .text(let term): return [term]
        }
    }

    private static func needles(_ expression: QueryExpression) -> [String] {
        switch expression {
        case .and(let children), .or(let children): return children.flatMap(needles)
        case .not, .text: return []
        case .predicate(let predicate):
            guard predicate.field == .message, predicate.op == .contains || predicate.op == .equal else { return [] }
            return predicate.values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
    }

    /// The ranges of `text` that match a term or a pattern, in order, without overlaps.
    public func ranges(in text: String) -> [Range<String.Index>] {
        var matcher = words
        var found = matcher.ranges(in: text)
        for needle in needles {
            var start = text.startIndex
            while let range = text.range(of: needle, options: [.caseInsensitive], range: start..<text.endIndex) {
                found.append(range)
                start = range.upperBound
            }
        }
        var merged: [Range<String.Index>] = []
        for range in found.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, range.lowerBound < last.upperBound { continue }
            merged.append(range)
        }
        return merged
    }

    /// `text` reduced to at most `width` characters around the first match, on one line, with
    /// matches wrapped in `open` and `close`.
    public func snippet(_ text: String, width: Int, open: String, close: String) -> String {
        let flat = text.map { $0.isNewline ? " " : $0 }
        let line = String(flat)
        let ranges = ranges(in: line)
        var lower = line.startIndex
        if let first = ranges.first, line.distance(from: line.startIndex, to: first.lowerBound) > width / 3 {
            lower = line.index(first.lowerBound, offsetBy: -(width / 3))
        }
        let upper = line.index(lower, offsetBy: width, limitedBy: line.endIndex) ?? line.endIndex
        var out = lower > line.startIndex ? "…" : ""
        var cursor = lower
        for range in ranges where range.lowerBound >= lower && range.upperBound <= upper {
            out += line[cursor..<range.lowerBound] + open + line[range] + close
            cursor = range.upperBound
        }
        out += line[cursor..<upper]
        if upper < line.endIndex { out += "…" }
        return out
    }
}
