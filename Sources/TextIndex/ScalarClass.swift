/// How the segmenter treats one Unicode scalar: the tables behind ``WordSegmenter`` and ``WordFolder``.
///
/// Written as code-point ranges because the standard library exposes no Script property. The ranges are
/// the Unicode blocks of each script (Unicode 15); a scalar outside them keeps the general rule (letters and
/// digits make words, symbols are tokens of their own, everything else separates).
enum ScalarClass {
    /// Scripts written without spaces between words (or, for Hangul, with particles attached to words): Han,
    /// Hiragana, Katakana, Bopomofo, Yi, Hangul, Thai, Lao, Khmer, Myanmar, Tai Tham, Javanese, Balinese.
    /// Their runs are indexed as overlapping pairs of characters, so that a word inside a run is found
    /// without a dictionary.
    static func isUnspaced(_ value: UInt32) -> Bool {
        switch value {
        case 0x0E00...0x0EFF,  // Thai, Lao
            0x1000...0x109F,  // Myanmar
            0x1100...0x11FF,  // Hangul Jamo
            0x1780...0x17FF, 0x19E0...0x19FF,  // Khmer
            0x1A20...0x1AAF,  // Tai Tham
            0x1B00...0x1B7F,  // Balinese
            0x2E80...0x2FDF,  // CJK radicals, Kangxi radicals
            0x3005...0x3007, 0x3021...0x3029, 0x3031...0x3035, 0x3038...0x303C,  // ideographic marks, numerals
            0x3041...0x30FF,  // Hiragana, Katakana
            0x3100...0x312F, 0x3130...0x318F, 0x31A0...0x31BF, 0x31F0...0x31FF,  // Bopomofo, Hangul jamo, Katakana ext.
            0x3400...0x4DBF, 0x4E00...0x9FFF,  // CJK ideographs
            0xA000...0xA4CF,  // Yi
            0xA960...0xA97F, 0xA980...0xA9DF, 0xA9E0...0xA9FF, 0xAA60...0xAA7F,  // Hangul ext., Javanese, Myanmar ext.
            0xAC00...0xD7FF,  // Hangul syllables, jamo ext. B
            0xF900...0xFAFF,  // CJK compatibility ideographs
            0xFF66...0xFF9F, 0xFFA0...0xFFDC,  // half-width Katakana and Hangul
            0x1B000...0x1B16F,  // Kana supplement and ext.
            0x20000...0x3FFFF:  // CJK ideographs ext. B and later
            return true
        default:
            return false
        }
    }

    /// Combining marks folded away as accents: the Latin, Greek and Cyrillic diacritics (after compatibility
    /// decomposition every accented letter of those scripts is a base letter followed by these), Vietnamese
    /// tone marks, Arabic harakat and Qur'anic marks, Hebrew points and cantillation, combining marks for
    /// symbols (the keycap), and variation selectors.
    ///
    /// Marks of scripts where they spell vowels (Thai, Devanagari and other Indic scripts, Japanese voicing
    /// marks) are kept: removing them would merge different words.
    static func isAccent(_ value: UInt32) -> Bool {
        switch value {
        case 0x0300...0x036F,  // combining diacritical marks (Latin, Greek, Cyrillic, Vietnamese tones)
            0x0483...0x0489,  // Cyrillic combining marks
            0x0591...0x05BD, 0x05BF, 0x05C1...0x05C2, 0x05C4...0x05C5, 0x05C7,  // Hebrew points, cantillation
            0x0610...0x061A, 0x064B...0x065F, 0x0670,  // Arabic harakat, superscript alef
            0x06D6...0x06DC, 0x06DF...0x06E4, 0x06E7...0x06E8, 0x06EA...0x06ED,  // Qur'anic annotation marks
            0x08D3...0x08FF,  // Arabic extended marks
            0x1AB0...0x1AFF, 0x1DC0...0x1DFF,  // combining diacritical marks, extended and supplement
            0x20D0...0x20FF,  // combining marks for symbols
            0xFE00...0xFE0F,  // variation selectors
            0xFE20...0xFE2F,  // combining half marks
            0xE0100...0xE01EF:  // variation selectors supplement
            return true
        default:
            return false
        }
    }

    /// Letters with no decomposition that searchers type without their stroke or as two letters, folded as
    /// Unicode's default collation and ICU's Latin-ASCII transliteration fold them (after case folding).
    /// Arabic and Persian spellings that keyboards and writers use interchangeably are unified as Lucene's
    /// Arabic and Persian normalizers do: alef wasla → alef, alef maksura and Farsi yeh → yeh, teh marbuta
    /// → heh, keheh → kaf.
    static let letterFolds: [UInt32: String] = [
        0x0111: "d", 0x00F0: "d", 0x00F8: "o", 0x0142: "l", 0x0127: "h", 0x0167: "t",
        0x00E6: "ae", 0x0153: "oe", 0x00FE: "th",
        0x0671: "\u{0627}", 0x0649: "\u{064A}", 0x06CC: "\u{064A}", 0x0629: "\u{0647}", 0x06A9: "\u{0643}",
    ]

    /// Arabic tatweel (kashida): a stretching stroke between letters, never part of a word's spelling.
    static let tatweel: UInt32 = 0x0640

    /// Emoji skin-tone modifiers, folded away so that 👍 finds 👍🏽.
    static func isSkinTone(_ value: UInt32) -> Bool {
        (0x1F3FB...0x1F3FF).contains(value)
    }

    /// Whether a Character whose first scalar is `scalar` is a symbol token: a non-ASCII symbol (currency,
    /// mathematical, modifier or other symbol, which includes almost every emoji) or an emoji that Unicode
    /// classes as punctuation (‼️, ⁉️).
    static func isSymbol(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .mathSymbol, .currencySymbol, .modifierSymbol, .otherSymbol: return true
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return scalar.properties.isEmoji
        default: return false
        }
    }

    /// Whether `scalar` is invisible and no word boundary: a format character (soft hyphen, word joiner,
    /// zero-width no-break space, bidi marks) but the zero-width space U+200B, which Thai, Khmer and Lao
    /// writers use between words.
    static func isIgnored(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format && scalar.value != 0x200B
    }

    /// Whether a Character whose first scalar is `scalar` belongs to a word: a letter or a number.
    static func isWordStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
            .decimalNumber, .letterNumber, .otherNumber:
            return true
        default:
            return false
        }
    }

    /// Arabic letters (after folding): the words whose prefixes ``AffixVariants`` removes.
    static func isArabicLetter(_ value: UInt32) -> Bool { (0x0620...0x064A).contains(value) }

    /// Hebrew letters.
    static func isHebrewLetter(_ value: UInt32) -> Bool { (0x05D0...0x05EA).contains(value) }
}
