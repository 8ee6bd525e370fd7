/// Parses the moderation query language (docs/query-language.md) into a ``Query``.
///
/// Recursive descent over ``QueryLexer``'s tokens: `or` binds loosest, then `and` (also implicit
/// between adjacent terms, and `&`), then `not`/`-`. Every failure is a ``QueryError`` at the
/// place it was found; nothing is ever parsed into a query that means something else.
public struct QueryParser: Sendable {
    /// Deeper nesting of parentheses and negations is refused (hostile input must not exhaust the stack).
    public static let maximumDepth = 100

    /// The time relative dates (`7d`, `today`) are measured from, in unix seconds.
    public var now: Int

    public init(now: Int) {
        self.now = now
    }

    public func parse(_ source: String) throws(QueryError) -> Query {
        var state = ParserState(tokens: try QueryLexer.tokens(source), end: source.count, now: now)
        guard !state.tokens.isEmpty else {
            throw QueryError(position: 0, length: 0, message: "empty query", hint: "type words to find, or field:value")
        }
        let root = try state.parseOr(depth: 0)
        if let extra = state.peek {
            throw QueryError(
                position: extra.range.lowerBound, length: extra.range.count,
                message: extra.kind == .closeParenthesis ? "unmatched `)`" : "unexpected text",
                hint: extra.kind == .closeParenthesis ? "remove it or add a `(` before" : nil)
        }
        return Query(source: source, root: root)
    }
}

/// The parser's position in the token list.
struct ParserState {
    let tokens: [QueryToken]
    let end: Int
    let now: Int
    var index = 0

    init(tokens: [QueryToken], end: Int, now: Int) {
        self.tokens = tokens
        self.end = end
        self.now = now
    }

    var peek: QueryToken? { index < tokens.count ? tokens[index] : nil }

    mutating func advance() -> QueryToken? {
        defer { index += 1 }
        return peek
    }

    /// An error at `token`, or just past the end of the query when there is none.
    func error(at token: QueryToken?, _ message: String, hint: String? = nil) -> QueryError {
        QueryError(
            position: token?.range.lowerBound ?? end, length: token?.range.count ?? 1, message: message, hint: hint)
    }

    mutating func parseOr(depth: Int) throws(QueryError) -> QueryExpression {
        var children = [try parseAnd(depth: depth)]
        while peek?.keyword == "or" {
            let or = advance()
            guard let next = peek, startsTerm(next) else {
                throw error(at: peek ?? or, "`or` needs a term after it")
            }
            children.append(try parseAnd(depth: depth))
        }
        return children.count == 1 ? children[0] : .or(children.flatMap { if case .or(let c) = $0 { c } else { [$0] } })
    }

    mutating func parseAnd(depth: Int) throws(QueryError) -> QueryExpression {
        var children: [QueryExpression] = []
        while let token = peek {
            if token.kind == .comma {
                index += 1  // a stray comma between words, as in pasted text
                continue
            }
            if token.keyword == "and" || token.kind == .ampersand {
                guard !children.isEmpty else { throw error(at: token, "`and` needs a term before it") }
                index += 1
                guard let next = peek, startsTerm(next) else {
                    throw error(at: peek ?? token, "`and` needs a term after it")
                }
                continue
            }
            guard startsTerm(token) else { break }
            children.append(try parseUnary(depth: depth))
        }
        guard !children.isEmpty else {
            throw error(at: peek, peek == nil ? "the query ends where a term was expected" : "expected a term here")
        }
        return children.count == 1
            ? children[0] : .and(children.flatMap { if case .and(let c) = $0 { c } else { [$0] } })
    }

    func startsTerm(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word: return token.keyword != "or" && token.keyword != "and"
        case .quoted, .openParenthesis, .minus, .rest: return true
        case .closeParenthesis, .comma, .ampersand, .comparison: return false
        }
    }

    mutating func parseUnary(depth: Int) throws(QueryError) -> QueryExpression {
        guard let token = peek else { throw error(at: nil, "the query ends where a term was expected") }
        guard depth < QueryParser.maximumDepth else {
            throw error(at: token, "nested deeper than \(QueryParser.maximumDepth) levels")
        }
        if token.keyword == "not" || token.kind == .minus {
            index += 1
            guard let next = peek, startsTerm(next) else {
                throw error(at: peek ?? token, "`\(token.kind == .minus ? "-" : "not")` needs a term after it")
            }
            return .not(try parseUnary(depth: depth + 1))
        }
        if token.kind == .openParenthesis {
            index += 1
            let inner = try parseOr(depth: depth + 1)
            guard peek?.kind == .closeParenthesis else {
                throw error(at: token, "unbalanced `(`", hint: "add a `)` to close it")
            }
            index += 1
            return inner
        }
        return try parseTerm()
    }

    mutating func parseTerm() throws(QueryError) -> QueryExpression {
        guard let token = advance() else { throw error(at: nil, "the query ends where a term was expected") }
        switch token.kind {
        case .quoted(let text):
            return .text(TextTerm(kind: .phrase, text: text, range: token.range))
        case .rest(let field, let op, let raw):
            return .predicate(try restPredicate(token, field: field, op: op, raw: raw))
        case .word(let text):
            if let next = peek {
                if case .comparison = next.kind { return .predicate(try predicate(field: token, name: text)) }
                if let keyword = next.keyword, ["ctn", "in", "nin", "all"].contains(keyword),
                    QueryField.named(text) != nil
                {
                    return .predicate(try predicate(field: token, name: text))
                }
            }
            if text.count > 1, text.hasSuffix("*") {
                return .text(TextTerm(kind: .prefix, text: String(text.dropLast()), range: token.range))
            }
            return .text(TextTerm(kind: .word, text: text, range: token.range))
        default:
            throw error(at: token, "expected a term here")
        }
    }
}
