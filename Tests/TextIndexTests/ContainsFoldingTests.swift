import Testing

@testable import TextIndex

@Suite("ctn folding")
struct ContainsFoldingTests {
    @Test(arguments: [
        ("ΕΛΛΆΔΑΣ", "άδας"), ("Straße", "SS"), ("STRASSE", "ß"), ("Café", "CAF"), ("cafe\u{301}", "café"),
        ("café", "cafe\u{301}"), ("İSTANBUL", "i̇st"), ("ПРИВЕТ", "прив"), ("北京见面", "京见"), ("abc", ""),
    ])
    func contains(text: String, pattern: String) {
        #expect(ContainsFolding.contains(text, pattern))
    }

    @Test(arguments: [("café", "cafe"), ("cafe", "café"), ("İSTANBUL", "ist"), ("abc", "abcd"), ("", "a")])
    func doesNotContain(text: String, pattern: String) {
        #expect(!ContainsFolding.contains(text, pattern))
    }

    /// A pattern of three or more folded scalars is in a text exactly when its trigrams are consecutive
    /// trigrams of the text: checked by brute force on random strings over a mixed alphabet.
    @Test func trigramsAreExactlyTheSubstringRule() {
        let alphabet = Array("aAbBß σΣςé\u{301}北京ก😀")
        var state: UInt64 = 42
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        for _ in 0..<2_000 {
            let text = String((0..<(next() % 12)).map { _ in alphabet[next() % alphabet.count] })
            let pattern = String((0..<(3 + next() % 3)).map { _ in alphabet[next() % alphabet.count] })
            let textGrams = trigrams(text)
            let patternGrams = trigrams(pattern)
            guard !patternGrams.isEmpty else { continue }
            let byIndex =
                textGrams.count >= patternGrams.count
                && (0...(textGrams.count - patternGrams.count)).contains {
                    Array(textGrams[$0..<($0 + patternGrams.count)]) == patternGrams
                }
            #expect(byIndex == ContainsFolding.contains(text, pattern), "\(text) / \(pattern)")
        }
    }

    private func trigrams(_ text: String) -> [[UInt8]] {
        var result: [[UInt8]] = []
        var scratch: [UInt8] = []
        var copy = text
        copy.withUTF8 { bytes in
            ContainsFolding.forEachTrigram(bytes, scratch: &scratch) { token, _ in result.append(Array(token)) }
        }
        return result
    }
}
