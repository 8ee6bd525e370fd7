/// A bare word, a `prefix*` or a "quoted phrase": full-text search on message text.
///
/// The text is exactly what was typed (minus a prefix's `*` and a phrase's quotes): the parser
/// never interprets FTS5 syntax, so `john.doe@mail.com`, `NEAR` or `C++` arrive here unchanged and
/// the SQL compiler decides how to quote them.
public struct TextTerm: Sendable, Hashable {
    /// How the text is matched.
    public enum Kind: Sendable, Hashable {
        /// A bare word.
        case word
        /// A bare word that ended in `*`: words starting with the text.
        case prefix
        /// A "quoted phrase": the words next to each other.
        case phrase
    }

    /// Word, prefix or phrase.
    public var kind: Kind
    /// The word without its trailing `*`, or the phrase's inner text with escapes resolved.
    public var text: String
    /// Character offsets in the source.
    public var range: Range<Int>

    /// A term as the parser builds it; public so generators and tests can build expressions directly.
    public init(kind: Kind, text: String, range: Range<Int>) {
        self.kind = kind
        self.text = text
        self.range = range
    }
}
