/// The parser's position in the token list, and the boolean part of the grammar.
///
/// ```
/// query  = or
/// or     = and { "or" and }
/// and    = unary { ["and" | "&"] unary }
/// unary  = ("not" | "-") unary | "(" or ")" | term
/// term   = predicate | word | prefix* | "phrase"
/// ```
struct ParserState {
    let characters: [Character]
    let tokens: [QueryToken]
    let now: Int
    var index = 0

    init(characters: [Character], tokens: [QueryToken], now: Int) {
        self.characters = characters
        self.tokens = tokens
        self.now = now
    }

    var peek: QueryToken? { index < tokens.count ? tokens[index] : nil }

    mutating func advance() -> QueryToken? {
        guard let token = peek else { return nil }
        index += 1
        return token
    }

    /// The source text of `range`, as typed.
    func text(of range: Range<Int>) -> String {
        String(characters[range.clamped(to: 0..<characters.count)])
    }

    /// An error at `range`, or just past the end of the query when there is none.
    func error(at range: Range<Int>?, _ message: String, hint: String? = nil) -> QueryError {
        QueryError(
            position: range?.lowerBound ?? characters.count, length: range?.count ?? 1, message: message, hint: hint)
    }

    mutating func parseQuery() throws(QueryError) -> QueryExpression {
        let root = try parseOr(depth: 0)
        guard let extra = peek else { return root }
        if extra.kind == .closeParenthesis {
            throw error(at: extra.range, "unmatched `)`", hint: "remove it, or add a `(` before it")
        }
        throw error(
            at: extra.range, "unexpected `\(QueryError.excerpt(text(of: extra.range)))`", hint: Self.hint(extra))
    }

    private mutating func parseOr(depth: Int) throws(QueryError) -> QueryExpression {
        var children = [try parseAnd(depth: depth)]
        while let token = peek, token.keyword == "or" {
            index += 1
            guard let next = peek, startsTerm(next) else { throw error(at: token.range, "`or` needs a term after it") }
            children.append(try parseAnd(depth: depth))
        }
        guard children.count > 1 else { return children[0] }
        return .or(children.flatMap { if case .or(let inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseAnd(depth: Int) throws(QueryError) -> QueryExpression {
        var children: [QueryExpression] = []
        while let token = peek {
            if token.kind == .comma {
                index += 1  // a stray comma between terms, as in pasted text
                continue
            }
            if token.kind == .ampersand || token.keyword == "and" {
                let name = token.kind == .ampersand ? "&" : "and"
                guard !children.isEmpty else { throw error(at: token.range, "`\(name)` needs a term before it") }
                index += 1
                guard let next = peek, startsTerm(next) else {
                    throw error(at: token.range, "`\(name)` needs a term after it")
                }
                continue
            }
            guard startsTerm(token) else { break }
            children.append(try parseUnary(depth: depth))
        }
        guard !children.isEmpty else {
            guard let token = peek else { throw error(at: nil, "the query ends where a term was expected") }
            if token.keyword == "or" { throw error(at: token.range, "`or` needs a term before it") }
            throw error(at: token.range, "expected a term here", hint: Self.hint(token))
        }
        guard children.count > 1 else { return children[0] }
        return .and(children.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    private func startsTerm(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word: token.keyword != "or" && token.keyword != "and"
        case .quoted, .openParenthesis, .minus, .rest: true
        case .closeParenthesis, .comma, .ampersand, .comparison: false
        }
    }

    private static func hint(_ token: QueryToken) -> String? {
        guard case .comparison = token.kind else { return nil }
        return "a comparison needs a field before it, as in date > 7d"
    }

    private mutating func parseUnary(depth: Int) throws(QueryError) -> QueryExpression {
        guard let token = peek else { throw error(at: nil, "the query ends where a term was expected") }
        let negation = token.keyword == "not" || token.kind == .minus
        guard negation || token.kind == .openParenthesis else { return try parseTerm() }
        guard depth < QueryParser.maximumDepth else {
            throw error(
                at: token.range, "nested deeper than \(QueryParser.maximumDepth) levels",
                hint: "remove some parentheses or negations")
        }
        index += 1
        if negation {
            guard let next = peek, startsTerm(next) else {
                throw error(at: token.range, "`\(token.kind == .minus ? "-" : "not")` needs a term after it")
            }
            return .not(try parseUnary(depth: depth + 1))
        }
        guard let next = peek else { throw error(at: token.range, "unbalanced `(`", hint: "add a `)` to close it") }
        if next.kind == .closeParenthesis {
            throw error(at: token.range.lowerBound..<next.range.upperBound, "empty `()`", hint: "put terms inside")
        }
        let inner = try parseOr(depth: depth + 1)
        guard let close = peek, close.kind == .closeParenthesis else {
            guard let other = peek else {
                throw error(at: token.range, "unbalanced `(`", hint: "add a `)` to close it")
            }
            throw error(at: other.range, "expected a term or `)` here", hint: Self.hint(other))
        }
        index += 1
        return inner
    }

    private mutating func parseTerm() throws(QueryError) -> QueryExpression {
        guard let token = advance() else { throw error(at: nil, "the query ends where a term was expected") }
        switch token.kind {
        case .quoted(let text):
            return .text(TextTerm(kind: .phrase, text: text, range: token.range))
        case .rest(let filter):
            return .predicate(try restPredicate(filter, range: token.range))
        case .word(let text):
            if let next = peek {
                if case .comparison = next.kind { return .predicate(try predicate(field: token, name: text)) }
                if let keyword = next.keyword, ["ctn", "in", "nin", "all"].contains(keyword),
                    QueryField.named(text) != nil || (keyword != "in" && QueryField.suggestion(for: text) != nil)
                {
                    return .predicate(try predicate(field: token, name: text))
                }
            }
            if text.hasSuffix("*"), text.contains(where: { $0 != "*" }) {
                return .text(TextTerm(kind: .prefix, text: String(text.dropLast()), range: token.range))
            }
            return .text(TextTerm(kind: .word, text: text, range: token.range))
        default:
            throw error(at: token.range, "expected a term here", hint: Self.hint(token))
        }
    }
}
