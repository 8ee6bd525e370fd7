/// The characters that stand for the query's syntax though they are not its ASCII ones.
///
/// Keyboards and phones type them for the ASCII ones: iOS and macOS turn `"` into “ ” and `--` into —,
/// autocorrect turns `-` into –, and Chinese and Japanese input methods type （ ） ： ！ and full-width
/// letters (`ｆｒｏｍ`, `ｏｒ`). Read as text they silently changed a query's meaning (`banana –apple`
/// required "apple"; `“late refund”` was two words, not a phrase). And a combining mark or an emoji
/// modifier typed right after `"`, `-` or `(` joins it into one Character (Unicode's grapheme rules), which hid
/// the syntax character from a lexer comparing whole Characters.
///
/// So the lexer decides on syntax through ``QueryLexer/syntax(of:)``, one Character for one, so that every
/// offset still points into the query as typed, and takes text — words, phrases, values — as typed.
extension QueryLexer {
    /// The ASCII syntax character `character` stands for, or `character` itself.
    ///
    /// A Character whose first scalar is whitespace is a space (a modifier typed after a space joins it); one
    /// whose first scalar is a syntax character or a lookalike of one is that character, whatever marks
    /// follow it.
    static func syntax(of character: Character) -> Character {
        guard let first = character.unicodeScalars.first else { return character }
        if first.properties.isWhitespace { return " " }
        if first.isASCII {
            return character.unicodeScalars.count == 1 ? character : Character(first)
        }
        switch first.value {
        case 0x201C, 0x201D, 0x201E, 0x201F, 0xFF02: return "\""  // “ ” „ ‟ ＂
        case 0x2010...0x2015, 0x2212, 0xFE63, 0xFF0D: return "-"  // hyphens, dashes, minus sign, ﹣ －
        case 0xFF01: return "!"
        case 0xFF08: return "("
        case 0xFF09: return ")"
        case 0xFF1A: return ":"
        default: return character
        }
    }

    /// `character` with a full-width ASCII form (`ｆ`, `Ｒ`, `２`) read as its ASCII letter or digit: how field
    /// names and keywords (`ｆｒｏｍ:`, `ｏｒ`) are recognised. Words stay as typed.
    static func folded(_ character: Character) -> Character {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first,
            (0xFF01...0xFF5E).contains(scalar.value), let ascii = Unicode.Scalar(scalar.value - 0xFEE0)
        else { return character }
        return Character(ascii)
    }

    /// A word with its full-width ASCII forms folded (``folded(_:)``).
    static func folded(_ text: String) -> String {
        String(text.map(folded))
    }

    /// Whether `character` is a Latin letter with an accent or other mark (`é`, `ö`, `ß`, `ơ`, or a letter followed
    /// by combining marks): Latin-1 Supplement, Latin Extended-A and -B, Latin Extended Additional.
    static func isLatinLetter(_ character: Character) -> Bool {
        guard character.isLetter, let first = character.unicodeScalars.first else { return false }
        let rest = character.unicodeScalars.dropFirst()
        guard rest.allSatisfy({ $0.properties.generalCategory == .nonspacingMark }) else { return false }
        if first.isASCII { return !rest.isEmpty }
        return (0xC0...0x24F).contains(first.value) || (0x1E00...0x1EFF).contains(first.value)
    }

    /// The scalars of `character` after its first: a mark or modifier typed after a syntax character or a
    /// space, which belongs to the text that follows.
    static func tail(of character: Character) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: character.unicodeScalars.dropFirst())
        return String(scalars)
    }

    /// Whether a quote opened by `opener` is closed by `closer`: an ASCII (or full-width) quote only by another;
    /// a typographic one by any typographic quote or an ASCII one (“…”, „…“, ”…”, “…").
    static func closes(_ closer: Character, opener: Character) -> Bool {
        guard syntax(of: closer) == "\"", let open = opener.unicodeScalars.first,
            let close = closer.unicodeScalars.first
        else { return false }
        let straight: Set<UInt32> = [0x22, 0xFF02]
        return straight.contains(open.value) ? straight.contains(close.value) : true
    }
}
