import QuickBlox

/// One lexical token of a query, with its Character offsets in the source.
struct QueryToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A bare run of characters: a word, a field name, a value or a keyword.
        case word(String)
        /// A "double-quoted" string, escapes resolved.
        case quoted(String)
        case openParenthesis, closeParenthesis, comma, ampersand
        /// `||`, read as `or`.
        case pipes
        /// An operator of another language that this one does not have: a regular-expression match (`~`,
        /// `=~`, `!~`, `~*`). Read only to explain the error.
        case foreign(String)
        /// A `-` that negates the term after it.
        case minus
        /// `=`, `!=`, `<`, `<=`, `>`, `>=`, or the `:` of `field:value` (read as `=`).
        case comparison(FilterOperator)
        /// QuickBlox's REST form `field[op]=value` or `field=value`.
        case rest(RestFilter)
    }

    /// The parts of a REST-form filter, each with its offsets, for precise errors.
    struct RestFilter: Sendable, Hashable {
        var field: String
        var fieldRange: Range<Int>
        /// QuickBlox's operator name as typed (`in`, `LTE`, …); empty for plain `field=value`.
        var op: String
        /// `[op]` with its brackets, or the `=` of plain `field=value`.
        var opRange: Range<Int>
        /// The value as typed, still percent-encoded unless ``quoted``.
        var value: String
        var valueRange: Range<Int>
        /// Whether the value was a "quoted string" (escapes resolved, no percent-decoding, no list).
        var quoted: Bool
    }

    var kind: Kind
    var range: Range<Int>

    /// The word in lower case when it is short enough to be a keyword (`and`, `or`, `not`, `ctn`, `in`, …);
    /// full-width letters read as ASCII (`ｏｒ`, `ＡＮＤ`: ``QueryLexer/folded(_:)``).
    var keyword: String? {
        guard case .word(let text) = kind, text.count <= 3 else { return nil }
        return QueryLexer.folded(text).lowercased()
    }
}
