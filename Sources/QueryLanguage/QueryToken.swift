/// One lexical token of a query, with its Character offsets in the source.
struct QueryToken: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// A bare run of characters: a word, a field name, a value or a keyword.
        case word(String)
        /// A "double-quoted" string, escapes resolved.
        case quoted(String)
        case openParenthesis, closeParenthesis, comma, ampersand
        /// A `-` that negates the term after it.
        case minus
        /// `=`, `!=`, `<`, `<=`, `>`, `>=`, or `:` (read as `=`).
        case comparison(QueryOperator)
        /// QuickBlox's REST form `field[op]=value,value`; `raw` is still percent-encoded.
        case rest(field: String, op: String, raw: String)
    }

    var kind: Kind
    var range: Range<Int>

    /// The word in lower case, for keywords (`and`, `or`, `not`, `ctn`, `in`, ...).
    var keyword: String? {
        if case .word(let text) = kind { return text.lowercased() }
        return nil
    }
}
