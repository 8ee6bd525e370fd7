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
    /// Line breaks in the query are shown as spaces and tabs are kept in the caret line, so the
    /// caret stays under the token in a terminal.
    public func rendered(query: String) -> String {
        let line = Self.oneLine(query)
        let offset = min(max(position, 0), line.count)
        let indent = String(line.prefix(offset).map { $0 == "\t" ? "\t" : " " })
        let caret = indent + "^" + String(repeating: "~", count: max(0, length - 1))
        return line + "\n" + caret + "\n" + Self.oneLine(message + (hint.map { " — \($0)" } ?? ""))
    }

    /// `text` with every line break replaced by a space.
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// `text` for quoting inside a message: at most 40 Characters, on one line.
    static func excerpt(_ text: String) -> String {
        oneLine(text.count > 40 ? String(text.prefix(39)) + "…" : text)
    }
}
