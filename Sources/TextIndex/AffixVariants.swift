/// The prefixes that Arabic and Hebrew write as part of the next word, so that a word is found whatever is
/// attached to it: `كتاب` in `والكتاب` ("and the book"), `ספר` in `והספר`.
///
/// The index stores, at the position of such a word, the word as written and each remainder after one of
/// these prefixes (the tokens share the position, so phrases still match); a query word is looked up as
/// typed. A remainder must keep at least ``minimumStem`` letters, so that a short word is never reduced to
/// a single letter.
///
/// Arabic: an optional conjunction (و "and", ف "so"), then an optional preposition (ب "with", ل "for",
/// ك "like"), then an optional article ال, with ل + ال written لل. Hebrew: optional ו, then ש or כש, then
/// one of ב כ ל מ, then the article ה.
public enum AffixVariants {
    /// The fewest letters a remainder keeps.
    public static let minimumStem = 2

    /// Arabic prefix combinations, longest first.
    public static let arabicPrefixes: [String] = {
        var prefixes: Set<String> = []
        for conjunction in ["", "\u{0648}", "\u{0641}"] {
            for preposition in ["", "\u{0628}", "\u{0644}", "\u{0643}"] {
                for article in ["", "\u{0627}\u{0644}"] {
                    if preposition == "\u{0644}" && !article.isEmpty {
                        prefixes.insert(conjunction + "\u{0644}\u{0644}")  // ل + ال is written لل
                    } else {
                        prefixes.insert(conjunction + preposition + article)
                    }
                }
            }
        }
        prefixes.remove("")
        return prefixes.sorted { ($0.unicodeScalars.count, $0) > ($1.unicodeScalars.count, $1) }
    }()

    /// Hebrew prefix combinations, longest first.
    public static let hebrewPrefixes: [String] = {
        var prefixes: Set<String> = []
        for conjunction in ["", "\u{05D5}"] {
            for relative in ["", "\u{05E9}", "\u{05DB}\u{05E9}"] {
                for preposition in ["", "\u{05D1}", "\u{05DB}", "\u{05DC}", "\u{05DE}"] {
                    for article in ["", "\u{05D4}"] {
                        prefixes.insert(conjunction + relative + preposition + article)
                    }
                }
            }
        }
        prefixes.remove("")
        return prefixes.sorted { ($0.unicodeScalars.count, $0) > ($1.unicodeScalars.count, $1) }
    }()

    /// The remainders of a folded word after each prefix it starts with (distinct, longest remainder
    /// first); empty for words of other scripts.
    public static func remainders(of word: String) -> [String] {
        guard let first = word.unicodeScalars.first else { return [] }
        let prefixes: [String]
        if ScalarClass.isArabicLetter(first.value) {
            prefixes = arabicPrefixes
        } else if ScalarClass.isHebrewLetter(first.value) {
            prefixes = hebrewPrefixes
        } else {
            return []
        }
        let scalars = Array(word.unicodeScalars)
        var found: [String] = []
        for prefix in prefixes.reversed() {
            let count = prefix.unicodeScalars.count
            guard scalars.count - count >= minimumStem, scalars.starts(with: prefix.unicodeScalars) else { continue }
            var rest = String.UnicodeScalarView()
            rest.append(contentsOf: scalars[count...])
            let remainder = String(rest)
            if !found.contains(remainder) { found.append(remainder) }
        }
        return found
    }
}
