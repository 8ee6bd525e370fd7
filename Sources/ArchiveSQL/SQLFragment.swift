import Archive

/// SQL text with its bound values, built once as a value and rendered for a dialect at execution.
///
/// Interpolation binds: `"m.sender_id = \(id)"` binds `id` as a parameter; only text written as a literal,
/// ``raw(_:)`` (this program's own identifiers and keywords) or another fragment reaches SQL as text, so
/// no value a user typed can change a statement's meaning. As postgres-nio's `PostgresQuery` does, the
/// placeholders are the dialect's (`?` for SQLite, `$1` for PostgreSQL), chosen when rendered.
public struct SQLFragment: Sendable, Hashable, ExpressibleByStringInterpolation {
    enum Piece: Sendable, Hashable {
        case text(String)
        case value(SQLValue)
    }

    private(set) var pieces: [Piece] = []

    public init() {}

    public init(stringLiteral text: String) {
        if !text.isEmpty { pieces = [.text(text)] }
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Text of this program's own (identifiers, keywords, expressions it built), never a user's value.
    public static func raw(_ text: String) -> SQLFragment {
        SQLFragment(stringLiteral: text)
    }

    /// One bound value.
    public static func bind(_ value: some SQLBindable) -> SQLFragment {
        var fragment = SQLFragment()
        fragment.pieces = [.value(value.sqlValue)]
        return fragment
    }

    /// Whether the fragment has no text and no value.
    public var isEmpty: Bool { pieces.isEmpty }

    /// The bound values, in order.
    public var values: [SQLValue] {
        pieces.compactMap { if case .value(let value) = $0 { value } else { nil } }
    }

    /// The statement text for `dialect` (its placeholders numbered from 1) and the values to bind.
    public func rendered(for dialect: any SQLDialect) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .text(let text): sql += text
            case .value(let value):
                values.append(value)
                sql += dialect.placeholder(values.count)
            }
        }
        return (sql, values)
    }

    public static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        var joined = lhs
        joined.append(rhs)
        return joined
    }

    public static func += (lhs: inout SQLFragment, rhs: SQLFragment) {
        lhs.append(rhs)
    }

    mutating func append(_ other: SQLFragment) {
        for piece in other.pieces {
            if case .text(let text) = piece, case .text(let last)? = pieces.last {
                pieces[pieces.count - 1] = .text(last + text)
            } else {
                pieces.append(piece)
            }
        }
    }

    /// `parts` joined with `separator` text.
    public static func joined(_ parts: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment()
        for (index, part) in parts.enumerated() {
            if index > 0 { result.append(.raw(separator)) }
            result.append(part)
        }
        return result
    }

    /// The most values one ``list(_:)`` binds where a list may be long: engines cap a statement's bound values.
    public static let listLimit = 500

    /// `values` in runs of at most ``listLimit``, in order: one `IN (…)` list, one statement each.
    public static func lists<Value>(_ values: [Value]) -> [[Value]] {
        stride(from: 0, to: values.count, by: listLimit).map { Array(values[$0..<min($0 + listLimit, values.count)]) }
    }

    /// `?, ?, ?` binding each value: the list of an `IN (…)`.
    public static func list(_ values: [some SQLBindable]) -> SQLFragment {
        joined(values.map { bind($0) }, separator: ", ")
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            guard !literal.isEmpty else { return }
            if case .text(let last)? = pieces.last {
                pieces[pieces.count - 1] = .text(last + literal)
            } else {
                pieces.append(.text(literal))
            }
        }

        /// A bound value.
        public mutating func appendInterpolation(_ value: some SQLBindable) {
            pieces.append(.value(value.sqlValue))
        }

        /// Another fragment, its text and values in place.
        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            for piece in fragment.pieces {
                if case .text(let text) = piece { appendLiteral(text) } else { pieces.append(piece) }
            }
        }

        /// This program's own text (an identifier, a column list, an expression it built).
        public mutating func appendInterpolation(raw text: String) {
            appendLiteral(text)
        }
    }
}
