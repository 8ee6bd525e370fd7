import QuickBlox
import Testing

@testable import QueryLanguage

/// A query is one line of text of at most ``QueryParser/maximumLength`` bytes: every control character,
/// wherever it is, and every byte past the cap is refused at its place.
@Suite("Query text: control characters and the length cap")
struct QueryTextLimitTests {
    /// Every C0 control, DEL and every C1 control.
    static let controls: [Unicode.Scalar] =
        (Array(0x00...0x1F) + [0x7F] + Array(0x80...0x9F) + Array(0x202A...0x202E) + Array(0x2066...0x2069) + [
            0x2028, 0x2029,
        ]).map {
            Unicode.Scalar(UInt32($0))!
        }

    @Test func everyControlCharacterAnywhereIsRefusedWhereItIs() {
        var random = SeededRandom(seed: 17)
        for query in QueryFuzzTests.valid {
            for control in Self.controls {
                var characters = Array(query)
                let position = Int(random.next() % UInt64(characters.count + 1))
                characters.insert(Character(control), at: position)
                let source = String(characters)
                let error = failure(source)
                // A control character after a combining mark may merge into one Character with it; the error
                // is at that Character either way.
                #expect(error?.position == position || error?.position == position - 1, "\(source.debugDescription)")
                #expect(error?.message.contains("control character") == true, "\(source.debugDescription)")
                #expect(error?.length == 1)
                let rendered = error.map { $0.rendered(query: source) } ?? ""
                #expect(!rendered.unicodeScalars.contains { QueryParser.isControl($0) && $0 != "\n" })
            }
        }
    }

    @Test(arguments: [
        ("\u{0}", "NUL"), ("\t", "tab"), ("\n", "line feed"), ("\r", "carriage return"),
        ("\u{1B}", "escape"), ("\u{7F}", "delete"),
    ])
    func theCharacterIsNamed(control: String, name: String) {
        let error = failure("refund" + control + "x")
        #expect(error?.message.contains(name) == true)
        #expect(error?.hint?.contains("one line") == true)
    }

    @Test func theCapCountsBytesNotCharacters() throws {
        let cap = QueryParser.maximumLength
        #expect(throws: Never.self) { try parser.parse(String(repeating: "a", count: cap)) }
        #expect(failure(String(repeating: "a", count: cap + 1))?.position == cap)
        // é is two bytes: 2,048 of them fill the cap exactly; the 2,049th is refused.
        #expect(throws: Never.self) { try parser.parse(String(repeating: "é", count: cap / 2)) }
        #expect(failure(String(repeating: "é", count: cap / 2 + 1))?.position == cap / 2)
        // A four-byte emoji that would straddle the cap is refused whole.
        let straddling = String(repeating: "a", count: cap - 2) + "🎉"
        #expect(failure(straddling)?.position == cap - 2)
        let error = try #require(failure(String(repeating: "refund ", count: 1_000)))
        #expect(error.message.contains("longer than \(cap) bytes"))
    }

    @Test func errorsShowControlCharactersAsPictures() {
        let query = "from:al\u{1B}ice"
        let error = failure(query)
        let rendered = error?.rendered(query: query) ?? ""
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[0] == "from:al\u{241B}ice")
        #expect(lines[1] == "       ^")
        #expect(QueryError.visible("a\u{0}b\u{85}c") == "a\u{2400}b\u{FFFD}c")
    }
}
