import Foundation
import TextIndex

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
    /// The zone calendar dates are read in.
    let zone: TimeZone
    var index = 0
    /// Words after `from`, `to`, `in`… without a colon, for the archive to check (``QueryAmbiguity``).
    var ambiguities: [QueryAmbiguity] = []
    /// Cuts text terms as the word index does, to refuse terms with nothing in them to search for.
    var tokenizer = WordTokenizer()

    init(characters: [Character], tokens: [QueryToken], now: Int, zone: TimeZone) {
        self.characters = characters
        self.tokens = tokens
        self.now = now
        self.zone = zone
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
        while let token = peek, token.keyword == "or" || token.kind == .pipes {
            index += 1
            guard let next = peek, startsTerm(next) else {
                throw error(at: token.range, "`\(text(of: token.range).lowercased())` needs a term after it")
            }
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
                let name = token.kind == .ampersand ? text(of: token.range) : "and"
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
            if token.keyword == "or" || token.kind == .pipes {
                throw error(at: token.range, "`\(text(of: token.range).lowercased())` needs a term before it")
            }
            throw error(at: token.range, "expected a term here", hint: Self.hint(token))
        }
        guard children.count > 1 else { return children[0] }
        return .and(children.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    private func startsTerm(_ token: QueryToken) -> Bool {
        switch token.kind {
        case .word: token.keyword != "or" && token.keyword != "and"
        case .quoted, .openParenthesis, .minus, .rest, .foreign: true
        case .closeParenthesis, .comma, .ampersand, .comparison, .pipes: false
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
            return .text(try textTerm(.phrase, text, token.range))
        case .rest(let filter):
            return .predicate(try restPredicate(filter, range: token.range))
        case .foreign(let symbol):
            throw regularExpression(symbol, at: token.range, field: nil)
        case .word(let text):
            if let next = peek {
                if case .comparison = next.kind { return .predicate(try predicate(field: token, name: text)) }
                if let field = QueryField.named(text), let foreign = try foreignOperator(after: token, field: field) {
                    return foreign
                }
                if let keyword = next.keyword, ["ctn", "in", "nin", "all"].contains(keyword),
                    QueryField.named(text) != nil || (keyword != "in" && QueryField.suggestion(for: text) != nil)
                {
                    return .predicate(try predicate(field: token, name: text))
                }
            }
            if text.count > 1, let first = text.first, first == "-" || first == "!" {
                // Never searched as a word: the index would drop the sign and find what was meant to be left out.
                throw error(
                    at: token.range, "`\(QueryError.excerpt(text))` is read as one word here",
                    hint: "put a space before `\(first)` to leave out what follows, or quote it to search for the text")
            }
            try checkWordBeforeValue(token, text)
            if let star = text.firstIndex(of: "*"), text[star...].contains(where: { $0 != "*" }) {
                // `*fund` and `re*fund` are no wildcards: the index would drop the `*` and search other words.
                let part = QueryError.excerpt(
                    String(text.split(separator: "*").max { $0.count < $1.count } ?? Substring(text)))
                throw error(
                    at: token.range, "`*` stands only at the end of a word (`refu*` finds the words that begin refu)",
                    hint: "to find text inside words, use message ctn \"\(part)\"; to search the characters as "
                        + "typed, quote them")
            }
            if text.hasSuffix("*"), text.contains(where: { $0 != "*" }) {
                return .text(try textTerm(.prefix, String(text.dropLast()), token.range))
            }
            return .text(try textTerm(.word, text, token.range))
        default:
            throw error(at: token.range, "expected a term here", hint: Self.hint(token))
        }
    }

    /// A full-text term, refused when it holds nothing the word index has: no letter, digit, emoji or
    /// symbol (`++`, `--`, `...`), which would otherwise match no message without a word of explanation.
    private mutating func textTerm(_ kind: TextTerm.Kind, _ text: String, _ range: Range<Int>) throws(QueryError)
        -> TextTerm
    {
        if tokenizer.tokens(of: text, mode: .query).isEmpty {
            let shown = kind == .phrase ? "\"\(QueryError.excerpt(text))\"" : "`\(QueryError.excerpt(text))`"
            let pattern = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            throw error(
                at: range, "\(shown) has nothing a word search can find: words are letters, digits, emoji and symbols",
                hint: text.isEmpty
                    ? "put a word between the quotes" : "to find these characters, use message ctn \"\(pattern)\"")
        }
        return TextTerm(kind: kind, text: text, range: range)
    }
}
