/// Cuts a text into searchable segments: words, runs of scripts written without spaces, and symbols.
///
/// The rules, applied to extended grapheme clusters (Swift's `Character`):
/// - a cluster that starts with a letter or a digit belongs to a word; consecutive ones form one word,
///   unless they are of a script written without spaces (``ScalarClass/isUnspaced(_:)``), whose
///   consecutive clusters form a run instead; a decimal digit of such a script (`๒๐๒๔`) belongs to a word,
///   as every script's digits do, so that it folds to the number `2024`;
/// - an invisible format character (soft hyphen, word joiner, zero-width no-break space, bidi marks) is
///   ignored: a word it stands in is one word, as a reader sees it (`infor­mation`). The zero-width space
///   still separates: Thai, Khmer and Lao writers put it between words;
/// - a cluster that starts with a non-ASCII symbol (emoji, currency, mathematical and other symbols), or a
///   keycap emoji (`1️⃣`), is a segment of its own;
/// - everything else separates: spaces, punctuation, ASCII symbols (so `john.doe@mail.com` is the words
///   *john doe mail com* and `C++` is *c*), control characters.
///
/// Texts are read as UTF-8. Chunks between ASCII separators that hold only ASCII letters and digits (most
/// words of most chats) take a fast path that lower-cases the bytes; any other chunk is read as Characters.
/// Both paths give the same segments (a test checks it).
public struct WordSegmenter: Sendable {
    private var folder = WordFolder()

    public init() {}

    /// The segments of `text`, in order.
    public mutating func segments(of text: String) -> [TextSegment] {
        var result: [TextSegment] = []
        var copy = text
        copy.withUTF8 { bytes in forEachSegment(bytes) { segment, _ in result.append(segment) } }
        return result
    }

    /// Calls `body` with each segment of the UTF-8 `bytes` and the byte range it came from.
    public mutating func forEachSegment(
        _ bytes: UnsafeBufferPointer<UInt8>, _ body: (TextSegment, Range<Int>) -> Void
    ) {
        var index = 0
        let count = bytes.count
        while index < count {
            guard !Self.isASCIISeparator(bytes[index]) else {
                index += 1
                continue
            }
            let start = index
            var ascii = true
            while index < count, !Self.isASCIISeparator(bytes[index]) {
                if bytes[index] >= 0x80 { ascii = false }
                index += 1
            }
            if ascii {
                let word = String(unsafeUninitializedCapacity: index - start) { buffer in
                    for offset in 0..<(index - start) {
                        let byte = bytes[start + offset]
                        buffer[offset] = (0x41...0x5A).contains(byte) ? byte + 32 : byte
                    }
                    return index - start
                }
                body(.word(word), start..<index)
            } else {
                chunk(UnsafeBufferPointer(rebasing: bytes[start..<index]), offset: start, body)
            }
        }
    }

    /// An ASCII byte that is neither a letter nor a digit.
    @inline(__always)
    static func isASCIISeparator(_ byte: UInt8) -> Bool {
        guard byte < 0x80 else { return false }
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return false
        default: return true
        }
    }

    /// What a Character is to the segmenter.
    public enum Kind: Sendable, Hashable {
        /// Ends a word or run: spaces, punctuation, ASCII symbols, controls, format characters.
        case separator
        /// Part of a word (a letter or digit of a script written with spaces).
        case word
        /// Part of a run (a letter or digit of a script written without spaces).
        case unspaced
        /// A segment of its own: an emoji or another non-ASCII symbol.
        case symbol
        /// Invisible, and no boundary: a format character but the zero-width space (``ScalarClass/isIgnored(_:)``).
        case ignored
    }

    /// What `character` is to the segmenter, by its first scalar.
    public static func kind(of character: Character) -> Kind {
        guard let first = character.unicodeScalars.first else { return .separator }
        if first.isASCII {
            // A keycap (`1️⃣`: a digit, then U+20E3) is an emoji, not the digit it encloses.
            if (0x30...0x39).contains(first.value), character.unicodeScalars.contains("\u{20E3}") { return .symbol }
            return isASCIISeparator(UInt8(first.value)) ? .separator : .word
        }
        if ScalarClass.isSymbol(first) { return .symbol }
        guard ScalarClass.isWordStart(first) else { return ScalarClass.isIgnored(first) ? .ignored : .separator }
        // A digit of a script written without spaces is part of a number, as every script's digits are.
        guard ScalarClass.isUnspaced(first.value), first.properties.generalCategory != .decimalNumber else {
            return .word
        }
        return .unspaced
    }

    /// A chunk holding non-ASCII bytes, read as Characters.
    private mutating func chunk(
        _ bytes: UnsafeBufferPointer<UInt8>, offset: Int, _ body: (TextSegment, Range<Int>) -> Void
    ) {
        let text = String(decoding: bytes, as: UTF8.self)
        var runKind = Kind.separator
        var runText = ""
        var runStart = 0
        var runEnd = 0
        var position = text.startIndex
        var byte = offset
        while position < text.endIndex {
            let next = text.index(after: position)
            let character = text[position]
            let nextByte = byte + text.utf8.distance(from: position, to: next)
            let kind = Self.kind(of: character)
            if kind == .ignored {
                position = next
                byte = nextByte
                continue
            }
            if kind != runKind || kind == .symbol {
                flush(runKind, runText, runStart..<runEnd, body)
                runKind = kind
                runText = ""
                runStart = byte
                runEnd = byte
            }
            switch kind {
            case .separator, .ignored: break
            case .symbol:
                let symbol = WordFolder.foldSymbol(String(character))
                if !symbol.isEmpty { body(.symbol(symbol), byte..<nextByte) }
                runKind = .separator
            case .word, .unspaced:
                runText.append(character)
                runEnd = nextByte
            }
            position = next
            byte = nextByte
        }
        flush(runKind, runText, runStart..<runEnd, body)
    }

    private mutating func flush(
        _ kind: Kind, _ text: String, _ range: Range<Int>, _ body: (TextSegment, Range<Int>) -> Void
    ) {
        guard !text.isEmpty else { return }
        switch kind {
        case .word:
            let word = folder.fold(text)
            if !word.isEmpty { body(.word(word), range) }
        case .unspaced:
            let characters = folder.fold(text).map { String($0) }
            if !characters.isEmpty { body(.run(characters), range) }
        case .separator, .symbol, .ignored:
            break
        }
    }
}
