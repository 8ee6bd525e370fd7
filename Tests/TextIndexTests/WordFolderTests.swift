import Testing

@testable import TextIndex

/// The folding rules, script by script: each pair must fold to the same word, each row of `distinct` must not.
@Suite("Word folding")
struct WordFolderTests {
    static let same: [(String, String, String)] = [
        ("Latin accents", "café", "CAFE"),
        ("NFD input", "cafe\u{301}", "café"),
        ("Vietnamese tones", "Cảm ơn", "cam on"),
        ("Vietnamese đ", "đường", "DUONG"),
        ("German ß", "Straße", "STRASSE"),
        ("capital sharp s", "GROẞE", "grosse"),
        ("Turkish dotted İ", "İSTANBUL", "istanbul"),
        ("Turkish dotless ı", "ırmak", "IRMAK"),
        ("Greek tonos", "Ελλάδα", "ελλαδα"),
        ("Greek capitals with tonos", "ΕΛΛΆΔΑ", "ελλαδα"),
        ("Greek final sigma", "ελλάδας", "ΕΛΛΑΔΑΣ"),
        ("Greek dialytika", "Ευρωπαϊκός", "ευρωπαικοσ"),
        ("Cyrillic ё", "Ёлка", "елка"),
        ("Cyrillic case", "ПРИВЕТ", "привет"),
        ("ligature fi", "ﬁle", "file"),
        ("ligature ffl", "ba\u{FB04}e", "baffle"),
        ("full-width", "ＦＵＬＬ１２", "full12"),
        ("Arabic harakat", "كِتَابٌ", "كتاب"),
        ("Arabic tatweel", "كتـــاب", "كتاب"),
        ("Arabic alef with hamza", "أحمد", "احمد"),
        ("Arabic alef maksura", "مستشفى", "مستشفي"),
        ("Hebrew niqqud", "שָׁלוֹם", "שלום"),
        ("Arabic-Indic digits", "٢٠٢٤", "2024"),
        ("Scandinavian ø", "Søren", "soren"),
        ("Polish ł", "Łódź", "lodz"),
        ("ligature æ", "Æsir", "aesir"),
        ("Georgian Mtavruli", "ᲡᲐᲥᲐᲠᲗᲕᲔᲚᲝ", "საქართველო"),
        ("Cherokee", "ᏣᎳᎩ", "ꮳꮃꭹ"),
        ("zero-width joiners and soft hyphen", "co\u{200D}op\u{200C}er", "cooper"),
        ("half-width katakana", "ｶﾞｷ", "ガキ"),
    ]

    static let distinct: [(String, String)] = [
        ("i", "j"), ("ελλαδα", "ελλαδο"), ("и", "ы"), ("ก", "ข"), ("北京", "南京"), ("ガ", "カ"), ("n", "ñ\u{0}"),
    ]

    @Test(arguments: same)
    func foldsAlike(name: String, a: String, b: String) {
        var folder = WordFolder()
        #expect(folder.fold(a) == folder.fold(b), "\(name): \(folder.fold(a)) vs \(folder.fold(b))")
    }

    @Test(arguments: distinct)
    func keepsDifferentWordsApart(a: String, b: String) {
        var folder = WordFolder()
        #expect(folder.fold(a) != folder.fold(b))
    }

    @Test func keepsMarksThatSpellVowels() {
        var folder = WordFolder()
        // Thai tone marks and vowel signs, Devanagari vowel signs, Japanese voicing: part of the word.
        #expect(folder.fold("น้ำ") != folder.fold("นา"))
        #expect(folder.fold("हिंदी") != folder.fold("हद"))
        #expect(folder.fold("が") == "が")
        #expect(folder.fold("한국어") == "한국어")
    }

    @Test func foldingIsIdempotentAndStable() {
        var folder = WordFolder()
        for (_, a, b) in Self.same {
            for word in [a, b] {
                let once = folder.fold(word)
                #expect(folder.fold(once) == once, "\(word)")
                var fresh = WordFolder()
                #expect(fresh.fold(word) == once, "memo changes the result for \(word)")
            }
        }
    }

    @Test func symbolsLoseVariationSelectorsAndSkinTones() {
        #expect(WordFolder.foldSymbol("🎉\u{FE0F}") == "🎉")
        #expect(WordFolder.foldSymbol("👍🏽") == "👍")
        #expect(WordFolder.foldSymbol("❤️") == WordFolder.foldSymbol("❤"))
        #expect(WordFolder.foldSymbol("👨‍👩‍👧") == "👨‍👩‍👧")
    }
}
