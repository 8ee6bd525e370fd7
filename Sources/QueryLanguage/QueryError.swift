import Foundation

/// A query that cannot be read: where (Character offsets), what, and what to do instead.
///
/// A malformed query must never run as something else, so every failure of the parser is one of
/// these, positioned on the offending token for the caret of ``rendered(query:)``. Later stages
/// (the SQL compiler resolving a login) throw it too, with the range they were given.
public struct QueryError: Error, LocalizedError, Sendable, Hashable {
    /// The offset of the first Character of the bad part (the query's length when the query ended
    /// where something else was expected).
    public var position: Int
    /// How many Characters the bad part spans (0 for an empty query; drawn at least one wide).
    public var length: Int
    /// What is wrong, on one line.
    public var message: String
    /// What to do instead, when there is something useful to say.
    public var hint: String?

    /// An error spanning `length` Characters from `position`; later stages use it with a term's range.
    public init(position: Int, length: Int, message: String, hint: String? = nil) {
        self.position = position
        self.length = length
        self.message = message
        self.hint = hint
    }

    /// The message, the 1-based column and the hint, on one line.
    public var errorDescription: String? {
        Self.oneLine("\(message) at column \(position + 1)" + (hint.map { " — \($0)" } ?? ""))
    }

    /// Three lines: the query, a caret under the bad part (`^~~~`), and the message with its hint.
    ///
    /// Line breaks in the query are shown as spaces and other control characters as their Unicode
    /// pictures (`␀`, `␛`, `␉`), one Character for one, so the caret stays under the token and nothing in a
    /// query can drive the terminal or page that shows it. The caret is placed by the columns a terminal gives
    /// each Character (``columns(of:)``): two for CJK and emoji, none for an invisible format character.
    public func rendered(query: String) -> String {
        let line = Array(Self.visible(Self.oneLine(query)))
        let offset = min(max(position, 0), line.count)
        let end = min(offset + max(length, 0), line.count)
        let indent = line[..<offset].reduce(0) { $0 + Self.columns(of: $1) }
        let width = line[offset..<end].reduce(0) { $0 + Self.columns(of: $1) }
        let caret = String(repeating: " ", count: indent) + "^" + String(repeating: "~", count: max(0, width - 1))
        return String(line) + "\n" + caret + "\n" + Self.oneLine(message + (hint.map { " — \($0)" } ?? ""))
    }

    /// The columns a terminal gives `character`, as `wcwidth` does: 0 for an invisible format character (a
    /// zero-width space, a word joiner), 2 for East Asian wide and full-width characters and emoji shown as
    /// pictures, 1 otherwise. Written by hand: neither the standard library nor Foundation on Linux exposes
    /// the East Asian Width property.
    static func columns(of character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if first.properties.generalCategory == .format, character.unicodeScalars.count == 1 { return 0 }
        if first.properties.isEmojiPresentation { return 2 }
        if first.properties.isEmoji, character.unicodeScalars.contains("\u{FE0F}") { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
            0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x1B000...0x1B2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// `text` with each control character (``QueryParser/isControl(_:)``) replaced by one visible Character: C0
    /// and DEL by their Unicode control pictures (U+2400…U+2421), the others by U+FFFD.
    public static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: QueryParser.isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0..<0x20: scalars.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: scalars.append("\u{2421}")
            case _ where QueryParser.isControl(scalar): scalars.append("\u{FFFD}")
            default: scalars.append(scalar)
            }
        }
        return String(scalars)
    }

    /// `text` with every line break replaced by a space.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// `text` for quoting inside a message: at most 40 Characters, on one line.
    public static func excerpt(_ text: String) -> String {
        oneLine(text.count > 40 ? String(text.prefix(39)) + "…" : text)
    }
}
