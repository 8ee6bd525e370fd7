import Search

/// A run of text, highlighted or not: templates wrap highlighted runs in `<mark>` and escape both, so
/// highlighting never needs raw HTML.
struct TextSegment: Sendable, Hashable {
    var text: String
    var hit: Bool

    private static let open: Character = "\u{E000}"
    private static let close: Character = "\u{E001}"

    /// `text` cut into plain and matching runs (the whole text; newlines kept).
    static func segments(_ text: String, highlighter: Highlighter?) -> [TextSegment] {
        guard let highlighter else { return [TextSegment(text: text, hit: false)] }
        var segments: [TextSegment] = []
        var cursor = text.startIndex
        for range in highlighter.ranges(in: text) {
            if cursor < range.lowerBound {
                segments.append(TextSegment(text: String(text[cursor..<range.lowerBound]), hit: false))
            }
            segments.append(TextSegment(text: String(text[range]), hit: true))
            cursor = range.upperBound
        }
        if cursor < text.endIndex { segments.append(TextSegment(text: String(text[cursor...]), hit: false)) }
        return segments
    }

    /// A one-line snippet of at most `width` characters around the first match, cut into runs.
    static func snippet(_ text: String, width: Int, highlighter: Highlighter) -> [TextSegment] {
        // Private-use markers carry the match boundaries out of `Highlighter.snippet`; any such
        // character already in the (hostile) text is replaced first so it cannot fake a boundary.
        let clean = String(text.map { $0 == open || $0 == close ? "\u{FFFD}" : $0 })
        let marked = highlighter.snippet(clean, width: width, open: String(open), close: String(close))
        var segments: [TextSegment] = []
        var current = ""
        var inHit = false
        for character in marked {
            if character == open || character == close {
                if !current.isEmpty { segments.append(TextSegment(text: current, hit: inHit)) }
                current = ""
                inHit = character == open
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { segments.append(TextSegment(text: current, hit: inHit)) }
        return segments
    }
}
