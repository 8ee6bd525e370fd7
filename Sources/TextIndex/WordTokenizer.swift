/// Whether a text is being indexed or looked up.
public enum TokenMode: Sendable {
    /// A message's text, going into the index.
    case document
    /// A word or phrase of a query, looked up in the index.
    case query
}

/// The tokens of the word index, as every storage backend stores and looks them up.
///
/// A backend splits nothing itself: it stores these tokens (SQLite through an FTS5 tokenizer, PostgreSQL
/// as a `tsvector`) and looks up the tokens of a query made the same way, so both find the same messages.
///
/// - A word (``TextSegment/word(_:)``) is one token. In a document, an Arabic or Hebrew word is also stored
///   without each prefix it carries (``AffixVariants``), at the same position.
/// - A symbol is one token.
/// - A run of a script written without spaces is stored as each of its characters, and at the same
///   position the pair it starts: `北京见面` is 北 北京 │ 京 京见 │ 见 见面 │ 面. A query run of one character
///   looks up that character; a longer one looks up its consecutive pairs (`北京见` → 北京 京见) — a phrase
///   that matches wherever those characters stand together, inside any run — and, when more follows in the
///   same query, its last character, so that the next word's position is right.
public struct WordTokenizer: Sendable {
    private var segmenter = WordSegmenter()

    public init() {}

    /// Calls `emit` with each token (UTF-8), whether it shares the previous token's position, and the byte
    /// range of the text it came from.
    public mutating func tokenize(
        _ text: UnsafeBufferPointer<UInt8>, mode: TokenMode,
        _ emit: (UnsafeBufferPointer<UInt8>, _ colocated: Bool, Range<Int>) -> Void
    ) {
        var pending: (String, Range<Int>)?
        func send(_ token: String, _ colocated: Bool, _ range: Range<Int>) {
            var token = token
            token.withUTF8 { emit($0, colocated, range) }
        }
        segmenter.forEachSegment(text) { segment, range in
            if let (character, range) = pending {
                send(character, false, range)
                pending = nil
            }
            switch segment {
            case .word(let word):
                send(word, false, range)
                if mode == .document {
                    for remainder in AffixVariants.remainders(of: word) { send(remainder, true, range) }
                }
            case .symbol(let symbol):
                send(symbol, false, range)
            case .run(let characters):
                if mode == .document {
                    for index in characters.indices {
                        send(characters[index], false, range)
                        if index + 1 < characters.count {
                            send(characters[index] + characters[index + 1], true, range)
                        }
                    }
                } else if characters.count == 1 {
                    send(characters[0], false, range)
                } else {
                    for index in 0..<(characters.count - 1) {
                        send(characters[index] + characters[index + 1], false, range)
                    }
                    pending = (characters[characters.count - 1], range)
                }
            }
        }
    }

    /// The tokens of `text`, each with whether it shares the previous token's position.
    public mutating func tokens(of text: String, mode: TokenMode) -> [(token: String, colocated: Bool)] {
        var result: [(String, Bool)] = []
        var copy = text
        copy.withUTF8 { bytes in
            tokenize(bytes, mode: mode) { token, colocated, _ in
                result.append((String(decoding: token, as: UTF8.self), colocated))
            }
        }
        return result
    }
}
