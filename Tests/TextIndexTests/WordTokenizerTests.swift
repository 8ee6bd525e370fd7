import Foundation
import Testing

@testable import TextIndex

@Suite("Segments and tokens")
struct WordTokenizerTests {
    func segments(_ text: String) -> [TextSegment] {
        var segmenter = WordSegmenter()
        return segmenter.segments(of: text)
    }

    func tokens(_ text: String, _ mode: TokenMode) -> [String] {
        var tokenizer = WordTokenizer()
        return tokenizer.tokens(of: text, mode: mode).map { ($0.colocated ? "+" : "") + $0.token }
    }

    @Test func latinWordsAndPunctuation() {
        #expect(
            segments("Hello, World! john.doe@mail.com C++ 4411") == [
                .word("hello"), .word("world"), .word("john"), .word("doe"), .word("mail"), .word("com"), .word("c"),
                .word("4411"),
            ])
        #expect(segments("") == [])
        #expect(segments("++ -- ...") == [])
    }

    @Test func runsOfUnspacedScripts() {
        #expect(segments("我们明天在北京见面") == [.run(["我", "们", "明", "天", "在", "北", "京", "见", "面"])])
        #expect(
            segments("iPhone用户，2024年") == [
                .word("iphone"), .run(["用", "户"]), .word("2024"), .run(["年"]),
            ])
        #expect(segments("ภาษาไทย ง่าย").count == 2)
        #expect(segments("서울에서 만나요") == [.run(["서", "울", "에", "서"]), .run(["만", "나", "요"])])
    }

    /// Rules version 2: a digit of a script written without spaces is part of a number; an invisible format
    /// character inside a word is no boundary (the zero-width space still is).
    @Test func digitsOfUnspacedScriptsAreNumbersAndFormatCharactersAreNoBoundary() {
        #expect(segments("ปี ๒๐๒๔") == [.run(["ปี"]), .word("2024")])
        #expect(segments("ราคา๕๐๐บาท") == [.run(["ร", "า", "ค", "า"]), .word("500"), .run(["บ", "า", "ท"])])
        for digits in ["໒໐໒໔", "២០២៤", "၂၀၂၄", "᪐᪒", "᭒᭐", "꧒꧐"] {
            #expect(segments(digits).allSatisfy { if case .word = $0 { true } else { false } }, "\(digits)")
        }
        #expect(segments("၂၀၂၄") == [.word("2024")] && segments("២០២៤") == [.word("2024")])
        for invisible in ["\u{AD}", "\u{2060}", "\u{FEFF}", "\u{200E}", "\u{2062}"] {
            #expect(segments("infor\(invisible)mation desk") == [.word("information"), .word("desk")], "\(invisible)")
            #expect(segments("\(invisible)word\(invisible)") == [.word("word")])
        }
        #expect(segments("北\u{2060}京") == [.run(["北", "京"])])
        #expect(segments("ภาษา\u{200B}ไทย").count == 2, "the zero-width space separates")
        #expect(tokens("pass\u{2060}word", .query) == ["password"])
        // A keycap is an emoji of its own, not the digit it encloses.
        #expect(segments("1\u{FE0F}\u{20E3} 1 7\u{20E3}") == [.symbol("1\u{20E3}"), .word("1"), .symbol("7\u{20E3}")])
    }

    @Test func symbolsAndEmoji() {
        #expect(
            segments("party🎉🎉 at 5€ ™") == [
                .word("party"), .symbol("🎉"), .symbol("🎉"), .word("at"), .word("5"), .symbol("€"), .symbol("™"),
            ])
        #expect(segments("🇫🇷👍🏽") == [.symbol("🇫🇷"), .symbol("👍")])
        // ASCII symbols stay separators, as before.
        #expect(segments("$100 + 5 = #tag") == [.word("100"), .word("5"), .word("tag")])
    }

    @Test func documentTokensPairCharactersOfARun() {
        #expect(tokens("北京见", .document) == ["北", "+北京", "京", "+京见", "见"])
        #expect(tokens("北", .document) == ["北"])
    }

    @Test func queryTokensArePairsAndALastCharacterBeforeMore() {
        #expect(tokens("北京", .query) == ["北京"])
        #expect(tokens("北京见", .query) == ["北京", "京见"])
        #expect(tokens("北", .query) == ["北"])
        #expect(tokens("北京 hello", .query) == ["北京", "京", "hello"])
        #expect(tokens("hello 北京", .query) == ["hello", "北京"])
    }

    @Test func arabicAndHebrewWordsAreAlsoIndexedWithoutTheirPrefixes() {
        let book = tokens("والكتاب", .document)
        #expect(book.first == "والكتاب")
        #expect(book.contains("+كتاب"))
        #expect(book.contains("+الكتاب"))
        #expect(tokens("والكتاب", .query) == ["والكتاب"])
        #expect(tokens("للطالب", .document).contains("+طالب"))
        #expect(tokens("והספר", .document).contains("+ספר"))
        // A remainder keeps two letters at least.
        #expect(!tokens("وب", .document).contains("+ب"))
    }

    /// The fast ASCII path and the Character path agree: the same text with one chunk forced onto the slow
    /// path by a non-ASCII separator gives the same words.
    @Test(arguments: ["Hello World", "a1 b2 C3PO", "MiXeD CaSe 123abc", "x"])
    func asciiFastPathAgreesWithTheGeneralPath(text: String) {
        let fast = segments(text)
        let slow = segments(text.replacingOccurrences(of: " ", with: "\u{3000}"))  // ideographic space
        #expect(fast == slow)
    }
}
