import Foundation

/// Splits a query into tokens.
///
/// Written by hand (no parser library is among the project's dependencies, and the language is
/// small): errors need exact Character positions, and the REST form `field[op]=v1,v2` and the
/// `field:value` shorthand need a little context — a `:` ends a word only when the word is (or
/// nearly is) a field name, so `http://x` and `10:00` stay whole.
struct QueryLexer {
    private let characters: [Character]
    private var index = 0
    private var tokens: [QueryToken] = []

    init(_ source: String) {
        characters = Array(source)
    }

    static func tokens(_ source: String) throws(QueryError) -> [QueryToken] {
        var lexer = QueryLexer(source)
        return try lexer.run()
    }

    private mutating func run() throws(QueryError) -> [QueryToken] {
        while index < characters.count {
            let character = characters[index]
            let start = index
            switch character {
            case _ where character.isWhitespace: index += 1
            case "(": emit(.openParenthesis, from: start, length: 1)
            case ")": emit(.closeParenthesis, from: start, length: 1)
            case ",": emit(.comma, from: start, length: 1)
            case "&": emit(.ampersand, from: start, length: 1)
            case "\"": try quoted()
            case "=": emit(.comparison(.equal), from: start, length: 1)
            case "<", ">":
                let orEqual = next(1) == "="
                let op: QueryOperator =
                    character == "<" ? (orEqual ? .lessOrEqual : .less) : (orEqual ? .greaterOrEqual : .greater)
                emit(.comparison(op), from: start, length: orEqual ? 2 : 1)
            case "!" where next(1) == "=": emit(.comparison(.notEqual), from: start, length: 2)
            case "!":
                throw QueryError(position: start, length: 1, message: "unexpected `!`", hint: "use `!=`, `not` or `-`")
            case "-" where atTermStart && next(1).map { !$0.isWhitespace && !$0.isNumber } ?? false:
                emit(.minus, from: start, length: 1)
            default: try word()
            }
        }
        return tokens
    }

    private func next(_ offset: Int) -> Character? {
        index + offset < characters.count ? characters[index + offset] : nil
    }

    /// Whether a `-` here starts a negated term rather than a value such as `-5` after an operator.
    private var atTermStart: Bool {
        guard let last = tokens.last else { return true }
        if case .comparison = last.kind { return false }
        return index == 0 || characters[index - 1].isWhitespace || characters[index - 1] == "("
    }

    private mutating func emit(_ kind: QueryToken.Kind, from start: Int, length: Int) {
        tokens.append(QueryToken(kind: kind, range: start..<(start + length)))
        index = start + length
    }

    private mutating func quoted() throws(QueryError) {
        let start = index
        var text = ""
        index += 1
        while index < characters.count {
            let character = characters[index]
            if character == "\\", let escaped = next(1), escaped == "\"" || escaped == "\\" {
                text.append(escaped)
                index += 2
            } else if character == "\"" {
                index += 1
                tokens.append(QueryToken(kind: .quoted(text), range: start..<index))
                return
            } else {
                text.append(character)
                index += 1
            }
        }
        throw QueryError(
            position: start, length: characters.count - start, message: "unterminated quote",
            hint: "close the phrase with `\"`")
    }

    private static let wordEnd: Set<Character> = ["(", ")", "\"", ",", "&", "=", "<", ">"]

    private mutating func word() throws(QueryError) {
        let start = index
        var text = ""
        while index < characters.count {
            let character = characters[index]
            if character.isWhitespace || Self.wordEnd.contains(character) { break }
            if character == "!", next(1) == "=" { break }
            if character == "[", Self.isIdentifier(text), let rest = restForm(field: text, start: start) {
                tokens.append(rest)
                return
            }
            if character == ":", Self.isIdentifier(text),
                QueryField.named(text) != nil || QueryField.suggestion(for: text) != nil
            {
                tokens.append(QueryToken(kind: .word(text), range: start..<index))
                emit(.comparison(.equal), from: index, length: 1)
                return
            }
            text.append(character)
            index += 1
        }
        tokens.append(QueryToken(kind: .word(text), range: start..<index))
    }

    private static func isIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }
    }

    /// Reads `[op]=values` after a field name; `nil` (nothing consumed) when the text is not of that form.
    private mutating func restForm(field: String, start: Int) -> QueryToken? {
        var cursor = index + 1
        var op = ""
        while cursor < characters.count, characters[cursor].isASCII, characters[cursor].isLetter {
            op.append(characters[cursor])
            cursor += 1
        }
        guard cursor + 1 < characters.count, characters[cursor] == "]", characters[cursor + 1] == "=" else {
            return nil
        }
        cursor += 2
        var raw = ""
        while cursor < characters.count, !characters[cursor].isWhitespace, characters[cursor] != "&",
            characters[cursor] != ")"
        {
            raw.append(characters[cursor])
            cursor += 1
        }
        index = cursor
        return QueryToken(kind: .rest(field: field, op: op.lowercased(), raw: raw), range: start..<cursor)
    }

    /// `%XX` escapes and `+` as a space, as in a URL query string; a malformed escape stays as it is.
    static func percentDecoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "%"), i + 2 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 2)], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                i += 3
            } else {
                bytes.append(utf8[i] == UInt8(ascii: "+") ? UInt8(ascii: " ") : utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
