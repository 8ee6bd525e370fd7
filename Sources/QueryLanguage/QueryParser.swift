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

    /// The time relative dates (`7d`, `today`) are measured from, in unix seconds.
    public var now: Int

    /// A parser measuring relative dates from `now` (unix seconds), passed in so results are reproducible.
    public init(now: Int) {
        self.now = now
    }

    /// The query `source` means, or the first thing wrong with it.
    public func parse(_ source: String) throws(QueryError) -> Query {
        let characters = Array(source)
        let tokens = try QueryLexer.tokens(characters)
        guard !tokens.isEmpty else {
            throw QueryError(
                position: 0, length: 0, message: "empty query", hint: "type words to find, or field:value to filter")
        }
        var state = ParserState(characters: characters, tokens: tokens, now: now)
        return Query(source: source, root: try state.parseQuery())
    }
}
