import Foundation

/// A query that cannot be read: where (Character offsets), what, and what to do instead.
public struct QueryError: Error, LocalizedError, Sendable, Hashable {
    /// The offset of the first Character of the bad part.
    public var position: Int
    /// How many Characters the bad part spans (at least 1 when rendered).
    public var length: Int
    public var message: String
    public var hint: String?

    public init(position: Int, length: Int, message: String, hint: String? = nil) {
        self.position = position
        self.length = length
        self.message = message
        self.hint = hint
    }

    public var errorDescription: String? {
        "\(message) at column \(position + 1)" + (hint.map { " — \($0)" } ?? "")
    }

    /// Three lines: the query, a caret under the bad part, and the message with its hint.
    public func rendered(query: String) -> String {
        let line = query.map { $0.isNewline ? " " : $0 }
        let caret =
            String(repeating: " ", count: min(position, line.count)) + "^"
            + String(repeating: "~", count: max(0, length - 1))
        return String(line) + "\n" + caret + "\n" + message + (hint.map { " — \($0)" } ?? "")
    }
}
