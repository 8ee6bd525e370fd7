import ArchiveSQL
import Foundation
import QueryLanguage
import TextIndex

/// The word index's tokens as PostgreSQL's text search types: a message's `tsvector` and a query's `tsquery`,
/// written as their input text and cast in SQL (`$1::tsvector`, `$1::tsquery`).
///
/// Every token comes from ``TextIndex/WordTokenizer``, as SQLite's FTS5 tokenizer's do; PostgreSQL's parser
/// and dictionaries never see the text (no `to_tsvector`, no `to_tsquery`): a quoted lexeme in a `tsvector`
/// or `tsquery` literal is taken as it is. Positions follow FTS5's: each token one position further, a
/// colocated token (an Arabic or Hebrew word without its prefix, a pair of a CJK run) at the previous one's,
/// so a phrase (`<->`) matches where FTS5's phrase does.
///
/// PostgreSQL's limits, which FTS5 does not have: a lexeme is at most 2,047 bytes (a longer token is left
/// out of the index: no real word is that long), positions stop at 16,383 and a lexeme keeps 256 of them, so
/// a phrase past the 16,383rd word of a message may be missed.
public enum PostgresWords {
    /// The longest lexeme PostgreSQL stores, in bytes.
    static let maximumLexemeBytes = 2047
    /// The last position PostgreSQL records.
    static let lastPosition = 16383

    /// The `tsvector` input of a message's text; `nil` without text (the column stays `NULL`).
    public static func vector(of text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        var tokenizer = WordTokenizer()
        var positions: [String: [Int]] = [:]
        var order: [String] = []
        var position = 0
        for (token, colocated) in tokenizer.tokens(of: text, mode: .document) {
            if !colocated || position == 0 { position = min(position + 1, lastPosition) }
            guard token.utf8.count <= maximumLexemeBytes else { continue }
            if positions[token] == nil { order.append(token) }
            positions[token, default: []].append(position)
        }
        return order.map { token in
            lexeme(token) + ":" + positions[token, default: []].map(String.init).joined(separator: ",")
        }.joined(separator: " ")
    }

    /// The `tsquery` input of a word query: each term the phrase of its tokens (`'a' <-> 'b'`), a prefix's
    /// last token marked `:*`; `&`, `|`, `!` and parentheses for the combinations.
    public static func query(_ query: WordQuery) -> String {
        switch query {
        case .term(let term): return phrase(term)
        case .all(let parts): return parts.map { "(" + self.query($0) + ")" }.joined(separator: " & ")
        case .any(let parts): return parts.map { "(" + self.query($0) + ")" }.joined(separator: " | ")
        case .group(let part): return "(" + self.query(part) + ")"
        case .except(let part, let excluded):
            return "(" + self.query(part) + ")" + excluded.map { " & !(" + self.query($0) + ")" }.joined()
        }
    }

    /// One term: FTS5 looks a quoted string up as the phrase of its query tokens, and so does this.
    private static func phrase(_ term: TextTerm) -> String {
        var tokenizer = WordTokenizer()
        let tokens = tokenizer.tokens(of: term.text, mode: .query).map(\.token)
            .filter { $0.utf8.count <= maximumLexemeBytes }
        // A term without a token matches nothing, as FTS5's empty phrase: a lexeme the tokenizer never makes
        // (it splits at spaces); PostgreSQL refuses an empty one.
        guard !tokens.isEmpty else { return lexeme(" ") }
        var quoted = tokens.map(lexeme)
        if term.kind == .prefix { quoted[quoted.count - 1] += ":*" }
        return quoted.count == 1 ? quoted[0] : "(" + quoted.joined(separator: " <-> ") + ")"
    }

    /// A lexeme quoted for `tsvector` and `tsquery` input: in single quotes, quotes and backslashes doubled.
    ///
    /// By hand, byte by byte: Foundation's `replacingOccurrences` bridged every token through `NSString` and was
    /// half the cost of a message's vector (a sixth of a crawl's CPU) when ingesting.
    static func lexeme(_ token: String) -> String {
        var quoted: [UInt8] = [UInt8(ascii: "'")]
        quoted.reserveCapacity(token.utf8.count + 2)
        for byte in token.utf8 {
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\\") { quoted.append(byte) }
            quoted.append(byte)
        }
        quoted.append(UInt8(ascii: "'"))
        return String(decoding: quoted, as: UTF8.self)
    }
}
