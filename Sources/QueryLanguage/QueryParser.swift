import Foundation

/// Parses the moderation query language (docs/query-language.md) into a ``Query``.
///
/// Recursive descent over the lexer's tokens: `or` binds loosest, then `and` (also implicit
/// between adjacent terms, and `&`), then `not` / `-`. Every failure is a ``QueryError`` at the
/// place it was found — nothing is ever parsed into a query that means something else — and any
/// input, however hostile, either parses or throws in time linear in its length (nesting is capped
/// at ``maximumDepth``).
public struct QueryParser: Sendable {
    /// Deeper nesting of parentheses and negations is refused, so hostile input cannot exhaust the stack.
    public static let maximumDepth = 100

    /// The longest query accepted, in UTF-8 bytes. A moderation query is a line or two; a longer one is
    /// refused before it costs the archive anything.
    public static let maximumLength = 4096

    /// The time relative dates (`7d`, `today`) are measured from, in unix seconds.
    public var now: Int
    /// The zone in which days, months and years (`2024-03-01`, `today`) are read; UTC by default.
    public var zone: TimeZone

    /// A parser measuring relative dates from `now` (unix seconds), passed in so results are reproducible, and
    /// reading calendar dates in `zone`.
    public init(now: Int, zone: TimeZone = QueryDate.utc) {
        self.now = now
        self.zone = zone
    }

    /// The query `source` means, or the first thing wrong with it.
    public func parse(_ source: String) throws(QueryError) -> Query {
        let characters = Array(source)
        try Self.checkText(characters)
        let tokens = try QueryLexer.tokens(characters)
        guard !tokens.isEmpty else {
            throw QueryError(
                position: 0, length: 0, message: "empty query", hint: "type words to find, or field:value to filter")
        }
        var state = ParserState(characters: characters, tokens: tokens, now: now, zone: zone)
        let root = try state.parseQuery()
        try QueryConsistency.check(root, source: characters, zone: zone)
        return Query(source: source, root: root, ambiguities: state.ambiguities)
    }

    /// Refuses a query longer than ``maximumLength`` bytes or holding a control character (C0, DEL or C1:
    /// NUL, escape, line breaks, tabs…), positioned where the limit is crossed or at the character.
    ///
    /// A NUL could cut a string short in a layer below (a C path, a log line) and an escape could drive a
    /// terminal; neither has any meaning in a query, so neither is ever ignored or passed on.
    public static func checkText(_ characters: [Character]) throws(QueryError) {
        var bytes = 0
        for (index, character) in characters.enumerated() {
            bytes += character.utf8.count
            if bytes > maximumLength {
                throw QueryError(
                    position: index, length: characters.count - index,
                    message: "the query is longer than \(maximumLength) bytes",
                    hint: "split it into several searches, or save the review and narrow it with fewer alternatives")
            }
            if let scalar = character.unicodeScalars.first(where: isControl) {
                let code = String(format: "U+%04X", scalar.value)
                throw QueryError(
                    position: index, length: 1,
                    message: "a control character (\(code)\(controlName(scalar))) cannot be part of a query",
                    hint: "a query is one line of text: remove it, and write a space for a line break or a tab")
            }
        }
    }

    /// C0, DEL and C1; and the characters that reorder or break what a terminal shows without being seen
    /// themselves: the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) —
    /// `refund U+202E etnegru` is shown as "refund urgente" — and the line and paragraph separators (U+2028,
    /// U+2029). The marks U+200E and U+200F stay allowed: copied Arabic and Hebrew text carries them.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value)
            || (0x2066...0x2069).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    private static func controlName(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00: " NUL"
        case 0x09: " tab"
        case 0x0A: " line feed"
        case 0x0D: " carriage return"
        case 0x1B: " escape"
        case 0x7F: " delete"
        case 0x202A...0x202E, 0x2066...0x2069: " bidirectional control"
        case 0x2028: " line separator"
        case 0x2029: " paragraph separator"
        default: ""
        }
    }
}
