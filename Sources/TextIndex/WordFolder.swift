import Foundation

/// Folds a word so that the spellings a searcher treats as one word are one: the rule shared by the index
/// of every storage backend, their queries and the highlighter.
///
/// A word is folded, scalar by scalar:
/// 1. compatibility decomposition (NFKD): ligatures (`ﬁ` → `fi`), full-width and half-width forms,
///    superscripts and precomposed accented letters (`é` → `e` + U+0301) come apart, so NFC and NFD input
///    fold alike;
/// 2. case folding as upper-then-lower case: `ß` → `ss`, final `ς` → `σ`, `İ` → `i` + dot, dotless `ı` → `i`;
/// 3. accents removed (``ScalarClass/isAccent(_:)``): Latin, Greek and Cyrillic diacritics, Vietnamese tones,
///    Arabic harakat, Hebrew points; format characters (ZWJ, ZWNJ, bidi marks, soft hyphen) and the
///    Arabic tatweel removed;
/// 4. a few letters without a decomposition folded as Unicode collation does (`đ` → `d`, `ø` → `o`,
///    `ł` → `l`, `æ` → `ae`) and interchangeable Arabic and Persian spellings unified;
/// 5. decimal digits of every script written as ASCII digits (`٢٠٢٤` → `2024`);
/// 6. canonical composition (NFC), so that what remains (Hangul, kana voicing marks, Indic vowel signs)
///    compares by its canonical form.
///
/// Foundation's normalization (ICU) does the decomposition and composition; the per-scalar rules above are
/// this file's, written here once so that SQLite and PostgreSQL index the same tokens. The mapping of each
/// non-ASCII scalar is computed once and remembered by this value (it is used by one tokenizer at a time).
public struct WordFolder: Sendable {
    private var memo: [UInt32: [Unicode.Scalar]] = [:]

    public init() {}

    /// `word` folded; ASCII is only lower-cased.
    public mutating func fold(_ word: some StringProtocol) -> String {
        var scalars = String.UnicodeScalarView()
        var compose = false
        for scalar in word.unicodeScalars {
            if scalar.isASCII {
                scalars.append(Self.lowercased(scalar))
                continue
            }
            for mapped in mapping(scalar) {
                scalars.append(mapped)
                if !compose, Self.mayCompose(mapped) { compose = true }
            }
        }
        let folded = String(scalars)
        return compose ? folded.precomposedStringWithCanonicalMapping : folded
    }

    /// A symbol or emoji folded: variation selectors and skin tones removed, nothing else changed.
    public static func foldSymbol(_ symbol: some StringProtocol) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in symbol.unicodeScalars
        where !(0xFE00...0xFE0F).contains(scalar.value) && !ScalarClass.isSkinTone(scalar.value) {
            scalars.append(scalar)
        }
        return String(scalars)
    }

    private mutating func mapping(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if let known = memo[scalar.value] { return known }
        let computed = Self.computeMapping(scalar)
        memo[scalar.value] = computed
        return computed
    }

    static func computeMapping(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        // A Hangul syllable decomposes into jamo that composition rebuilds: keep it as it is.
        if (0xAC00...0xD7A3).contains(scalar.value) { return [scalar] }
        // Thai and Lao keep their one compatibility decomposition (sara am, `ำ` → `ํา`), which would move a
        // mark across a character boundary.
        let decomposition =
            (0x0E00...0x0EFF).contains(scalar.value)
            ? [scalar] : Array(String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars)
        var result: [Unicode.Scalar] = []
        for decomposed in decomposition {
            for folded in caseFolded(decomposed) {
                let value = folded.value
                if ScalarClass.isAccent(value) || value == ScalarClass.tatweel { continue }
                if folded.properties.generalCategory == .format { continue }
                if let letters = ScalarClass.letterFolds[value] {
                    result.append(contentsOf: letters.unicodeScalars)
                } else if !folded.isASCII, folded.properties.generalCategory == .decimalNumber,
                    let digit = folded.properties.numericValue, (0...9).contains(digit)
                {
                    result.append(Unicode.Scalar(UInt8(48 + Int(digit))))
                } else {
                    result.append(folded)
                }
            }
        }
        return result
    }

    /// Upper case, then lower case, of one scalar (full mappings), until nothing changes: a case folding that
    /// also joins the letters simple lower-casing keeps apart (`ς`/`σ`, `ß`/`ẞ`/`ss`, `ſ`/`s`, `µ`/`μ`).
    static func caseFolded(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
        if scalar.isASCII { return [lowercased(scalar)] }
        guard scalar.properties.changesWhenCaseMapped else { return [scalar] }
        var current = [scalar]
        for _ in 0..<3 {
            var next: [Unicode.Scalar] = []
            for part in current {
                for upper in part.properties.uppercaseMapping.unicodeScalars {
                    next.append(contentsOf: upper.properties.lowercaseMapping.unicodeScalars)
                }
            }
            if next == current { break }
            current = next
        }
        return current
    }

    @inline(__always)
    static func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(UInt8(scalar.value + 32)) : scalar
    }

    /// Whether canonical composition may change a text holding `scalar`: combining marks and conjoining jamo.
    static func mayCompose(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x11FF, 0xA960...0xA97F, 0xD7B0...0xD7FF: return true
        default:
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark: return true
            default: return false
            }
        }
    }
}
