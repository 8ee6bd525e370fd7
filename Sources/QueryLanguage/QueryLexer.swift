import QuickBlox

/// Splits a query into tokens.
///
/// Written by hand (the language is small and errors need exact Character offsets). Two places
/// need a little context: `field:value` — a `:` ends a word when the word is a field name or an
/// operator, or a name followed at once by a value (to report the unknown name), so `http://x`, `10:00`
/// and `Re: x` stay whole — and QuickBlox's REST form
/// `field[op]=v1,v2` / `field=value`, read as one token because its values are percent-encoded and
/// comma-separated. Every step consumes at least one Character and nothing is rescanned, so the
/// lexer is linear in the input whatever it is.
struct QueryLexer {
    /// The query as typed: the text of words, phrases and values.
    private let characters: [Character]
    /// What each Character stands for in the syntax (``syntax(of:)``): what the lexer decides on.
    private let syntax: [Character]
    private var index = 0
    private var tokens: [QueryToken] = []

    private init(_ characters: [Character]) {
        self.characters = characters
        syntax = characters.map(Self.syntax(of:))
    }

    /// The tokens of `characters`, or the first lexical error (an unterminated quote, a lone `!`).
    static func tokens(_ characters: [Character]) throws(QueryError) -> [QueryToken] {
        var lexer = QueryLexer(characters)
        try lexer.run()
        return lexer.tokens
    }

    private mutating func run() throws(QueryError) {
        while index < characters.count {
            let character = syntax[index]
            let start = index
            switch character {
            case _ where character.isWhitespace:
                // A mark or modifier typed after a space joins it: it starts the word that follows.
                if Self.tail(of: characters[index]).isEmpty { index += 1 } else { try word(afterSpace: true) }
            case "(": emit(.openParenthesis, from: start, length: 1)
            case ")": emit(.closeParenthesis, from: start, length: 1)
            case ",": emit(.comma, from: start, length: 1)
            case "&": emit(.ampersand, from: start, length: next(1) == "&" ? 2 : 1)  // `&&` is `&`
            case "|" where next(1) == "|": emit(.pipes, from: start, length: 2)
            case "|":
                // `money|gone` was one word (the phrase "money gone"): a lone `|` is refused, not guessed.
                throw QueryError(
                    position: start, length: 1, message: "a single `|`",
                    hint: "write `or` (or `||`) between two terms; to find the character, use message ctn \"|\"")
            case "~": emit(.foreign(next(1) == "*" ? "~*" : "~"), from: start, length: next(1) == "*" ? 2 : 1)
            case "\"":
                let (text, end) = try quoted(from: start)
                emit(.quoted(text), from: start, length: end - start)
            case "=" where next(1) == "~": emit(.foreign("=~"), from: start, length: 2)
            case "=": emit(.comparison(.equal), from: start, length: next(1) == "=" ? 2 : 1)  // `==` is `=`
            case "<" where next(1) == ">": emit(.comparison(.notEqual), from: start, length: 2)  // SQL's `<>`
            case "<", ">":
                let orEqual = next(1) == "="
                let op: FilterOperator =
                    character == "<"
                    ? (orEqual ? .lessThanOrEqual : .lessThan) : (orEqual ? .greaterThanOrEqual : .greaterThan)
                emit(.comparison(op), from: start, length: orEqual ? 2 : 1)
            case "!" where next(1) == "=": emit(.comparison(.notEqual), from: start, length: 2)
            case "!" where next(1) == "~": emit(.foreign("!~"), from: start, length: 2)
            case "!" where negates: emit(.minus, from: start, length: 1)  // `!spam` is `-spam`
            case "!":
                throw QueryError(position: start, length: 1, message: "unexpected `!`", hint: "use `!=`, `not` or `-`")
            case "-" where negates: emit(.minus, from: start, length: 1)
            default: try word()
            }
        }
    }

    private func next(_ offset: Int) -> Character? {
        index + offset < syntax.count ? syntax[index + offset] : nil
    }

    /// Whether the `-` (or `!`) here negates the term after it (`-spam`, `-2024`, `-(a b)`, `--spam`,
    /// `(a)-b`), rather than being part of a word (`e-mail`) or a value after a comparison (`> -5`).
    ///
    /// A term that starts with a digit is negated too, as in Slack and Gmail: `invoice -2024` excludes 2024
    /// (it was the word `-2024`, which the index reads as `2024` — the opposite). Where a value is expected
    /// (`custom.n in (1, -5)`, `message ctn -x`) the parser joins the `-` and the word after it again
    /// (``ParserState/valueToken()``).
    private var negates: Bool {
        guard let following = next(1), !following.isWhitespace, following != "=" else { return false }
        guard let last = tokens.last else { return true }  // nothing before it: the query starts here
        if case .comparison = last.kind { return false }
        let previous = syntax[index - 1]
        if previous.isWhitespace || previous == "(" || previous == "&" { return true }
        // Right after a token that ends here: a negation (`--spam`, `!-spam`), `)`, a closing quote, `,`, `||`.
        guard last.range.upperBound == index else { return false }
        switch last.kind {
        case .minus, .closeParenthesis, .quoted, .comma, .pipes: return true
        default: return false
        }
    }

    private mutating func emit(_ kind: QueryToken.Kind, from start: Int, length: Int) {
        tokens.append(QueryToken(kind: kind, range: start..<(start + length)))
        index = start + length
    }

    /// The text of the "quoted string" starting at `start` (escapes `\"` and `\\` resolved) and the
    /// offset just past its closing quote (``closes(_:opener:)``: “typographic” quotes too). A mark typed
    /// right after the opening quote is the phrase's first character.
    private func quoted(from start: Int) throws(QueryError) -> (text: String, end: Int) {
        let opener = characters[start]
        var text = Self.tail(of: opener)
        var cursor = start + 1
        while cursor < characters.count {
            let character = characters[cursor]
            if syntax[cursor] == "\\", cursor + 1 < characters.count, ["\"", "\\"].contains(syntax[cursor + 1]) {
                text.append(characters[cursor + 1])
                cursor += 2
            } else if Self.closes(character, opener: opener) {
                return (text, cursor + 1)
            } else {
                text.append(character)
                cursor += 1
            }
        }
        throw QueryError(
            position: start, length: characters.count - start, message: "unterminated quote",
            hint: "close it with `\"`, or write `\\\"` for a quote inside")
    }

    /// Operators spelled as words, after which a value follows.
    private static let valueOperators: Set<String> = Set(["ctn", "in", "nin", "all"]).union(
        ParserState.wordOperators.keys)

    /// Characters that end a bare word.
    private static let wordEnd: Set<Character> = ["(", ")", "\"", ",", "&", "|", "=", "<", ">"]

    /// A bare word from `index`; `afterSpace` when it starts with the marks joined to a space (``tail(of:)``).
    private mutating func word(afterSpace: Bool = false) throws(QueryError) {
        let start = index
        var text = ""
        // The word with full-width letters folded (`ｆｒｏｍ`), and whether it could still be a field name: a
        // name of another alphabet's letters is never one, but Latin letters with accents are read as one, to
        // be refused as no field (`fröm:alice`) rather than searched as text.
        var key = ""
        var identifier = true
        while index < characters.count {
            let character = syntax[index]
            let first = afterSpace && index == start
            if character.isWhitespace, !first { break }
            if identifier, !key.isEmpty {
                if let rest = try restFilter(field: key, start: start, at: character) {
                    tokens.append(rest)
                    return
                }
                if character == ":", splitsAtColon(key) {
                    tokens.append(QueryToken(kind: .word(key), range: start..<index))
                    emit(.comparison(.equal), from: index, length: 1)
                    return
                }
            }
            if Self.wordEnd.contains(character) || (character == "!" && next(1) == "=") { break }
            text += first ? Self.tail(of: characters[index]) : String(characters[index])
            let folded = Self.folded(characters[index])
            key.append(folded)
            identifier = identifier && !first && (QueryField.isKeyCharacter(folded) || Self.isLatinLetter(folded))
            index += 1
        }
        tokens.append(QueryToken(kind: .word(text), range: start..<index))
    }

    /// Whether the word `text`, just before a `:`, is a field or an operator to read (`from:alice`, `has:link`),
    /// or a name that is no field (`frm:alice`, `re:refund`) to report, rather than text to search for.
    ///
    /// A field or a search operator always splits (`from: alice` names the value after the space). Another
    /// name splits only when it starts with a letter and a value follows at once: `Re: refund` (a space),
    /// `10:00` (a digit first) and `https://…` (a slash) stay text.
    private func splitsAtColon(_ text: String) -> Bool {
        if let last = tokens.last {  // a value after an operator is whole: `date = T10:00`, `message ctn re:x`
            if case .comparison = last.kind { return false }
            if let word = last.keyword, Self.valueOperators.contains(word) { return false }
        }
        if QueryField.named(text) != nil || QueryShortcut(name: text) != nil { return true }
        guard let first = text.first, first.isLetter, first.isASCII || Self.isLatinLetter(first),
            let following = next(1)
        else { return false }
        return !following.isWhitespace && following != "/" && following != ":"
    }

    /// The REST-form token when the word `field` is followed by `[op]=value`, or by `=value` with no
    /// space, consuming it; `nil`, with nothing consumed, otherwise.
    private mutating func restFilter(field: String, start: Int, at character: Character) throws(QueryError)
        -> QueryToken?
    {
        guard character == "[" || character == "=" else { return nil }
        var cursor = index
        var op = ""
        if character == "[" {
            cursor += 1
            while cursor < characters.count, characters[cursor].isASCII, characters[cursor].isLetter {
                op.append(characters[cursor])
                cursor += 1
            }
            guard cursor + 1 < characters.count, syntax[cursor] == "]", syntax[cursor + 1] == "=" else {
                return nil
            }
            cursor += 1
        }
        let opRange = character == "[" ? index..<cursor : cursor..<(cursor + 1)
        let valueStart = cursor + 1
        if character == "=" {
            // Plain `field=value` only when the value follows at once: `field = value` is the
            // language's own form, and `field==x` or `field=(` are no REST values.
            guard valueStart < characters.count, !syntax[valueStart].isWhitespace,
                !["=", "(", ")", "&"].contains(syntax[valueStart])
            else { return nil }
        }
        var value = ""
        var end = valueStart
        let quoted = valueStart < characters.count && syntax[valueStart] == "\""
        if quoted {
            (value, end) = try self.quoted(from: valueStart)
        } else {
            while end < characters.count, !syntax[end].isWhitespace, syntax[end] != "&", syntax[end] != ")" {
                value.append(characters[end])
                end += 1
            }
        }
        index = end
        let filter = QueryToken.RestFilter(
            field: field, fieldRange: start..<(start + field.count), op: op, opRange: opRange, value: value,
            valueRange: valueStart..<end, quoted: quoted)
        return QueryToken(kind: .rest(filter), range: start..<end)
    }
}
