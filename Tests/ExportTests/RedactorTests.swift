import Foundation
import QuickBlox
import Testing

@testable import Export

/// The redaction rules against generated cases: thousands of addresses, numbers and links of the documented
/// shapes, in text of many scripts, each gone and its neighbours untouched; and lookalikes left alone.
@Suite("Redactor: generated e-mail addresses, phone numbers and URLs in many scripts")
struct RedactorTests {
    static let alphabets = [
        "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "абвгдежзийклмнопрстуфхцчшщэюя",
        "αβγδεζηθικλμνξοπρστυφχψω", "中文用户例子邮件网络", "あいうえおかきくけこ", "ابتثجحخدذرزسشصضطظعغفقكلمنهوي",
        "אבגדהוזחטיכלמנסעפצקרשת", "กขคงจฉชซญดตถทนบปผพฟภมยรลวศษสหอฮ",
    ]
    /// Words around the data: letters of any script, emoji, punctuation that is not part of it.
    static let context = [
        "hello", "привет", "γεια", "你好", "こんにちは", "مرحبا", "שלום", "สวัสดี", "🎉", "(see", "note:", "—", "and",
        "«", "»", "2", "ok",
    ]

    static func word(_ rng: inout SeededRandom, length: ClosedRange<Int>) -> String {
        let alphabet = Array(alphabets.randomElement(using: &rng) ?? "a")
        return String((0..<Int.random(in: length, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static func email(_ rng: inout SeededRandom) -> String {
        var local = word(&rng, length: 1...8)
        if Bool.random(using: &rng) {
            local += [".", "_", "+", "-"].randomElement(using: &rng)! + word(&rng, length: 1...5)
        }
        let labels = (0..<Int.random(in: 1...3, using: &rng)).map { _ in word(&rng, length: 1...8) }
        let tld = word(&rng, length: 2...6)
        return local + "@" + (labels + [tld]).joined(separator: ".")
    }

    static func phone(_ rng: inout SeededRandom) -> String {
        while true {
            var parts: [String] = []
            var digits = 0
            let separator = [" ", "-", ".", "", "\u{A0}", "\u{202F}", "\u{2013}"].randomElement(using: &rng)!
            if Bool.random(using: &rng) {
                let code = String(Int.random(in: 1...999, using: &rng))
                parts.append("+" + code)
                digits += code.count
            }
            if Int.random(in: 0..<4, using: &rng) == 0 {
                let area = String(Int.random(in: 10...9999, using: &rng))
                parts.append("(" + area + ")")
                digits += area.count
            }
            for _ in 0..<Int.random(in: 2...4, using: &rng) {
                let size = Int.random(in: 3...4, using: &rng)
                parts.append(String((0..<size).map { _ in "0123456789".randomElement(using: &rng)! }))
                digits += size
            }
            let text = parts.joined(separator: separator.isEmpty ? " " : separator)
            if (7...15).contains(digits), Redactor.isPhone(text) { return text }
        }
    }

    static func url(_ rng: inout SeededRandom) -> String {
        let scheme = ["https://", "http://", "HTTP://", "ftp://", "www."].randomElement(using: &rng)!
        let host = (scheme == "www." ? "" : word(&rng, length: 1...8) + ".") + word(&rng, length: 2...8)
        var path = ""
        for _ in 0..<Int.random(in: 0...3, using: &rng) { path += "/" + word(&rng, length: 1...6) }
        if Bool.random(using: &rng) {
            path += "?q=" + word(&rng, length: 1...4) + "&n=" + String(Int.random(in: 0...99, using: &rng))
        }
        return scheme + host + path
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func everyGeneratedItemIsReplacedAndItsNeighboursKept(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let redactor = Redactor(try Redaction(list: "all"))
        for _ in 0..<300 {
            let kind = Int.random(in: 0..<3, using: &rng)
            let item = [Self.email, Self.phone, Self.url][kind](&rng)
            let replacement = ["[email]", "[phone]", "[url]"][kind]
            let before = Self.context.randomElement(using: &rng)!
            let after = Self.context.randomElement(using: &rng)!
            let end = [".", ",", "!", "?", ""].randomElement(using: &rng)!
            let text = "\(before) \(item)\(end) \(after)"
            #expect(redactor.redact(text) == "\(before) \(replacement)\(end) \(after)", "seed \(seed): \(item)")
        }
    }

    /// Numbers as typography writes them: no-break, narrow no-break and thin spaces, en dashes, a full-width plus
    /// and digits; each whole, the words around kept.
    @Test(arguments: [
        "06\u{A0}12\u{A0}34\u{A0}56\u{A0}78", "06\u{202F}12\u{202F}34\u{202F}56\u{202F}78",
        "+33\u{A0}6\u{A0}12\u{A0}34\u{A0}56\u{A0}78", "+49\u{A0}30\u{A0}1234567", "030\u{2009}1234567",
        "+49–30–1234567", "＋４９ ３０ １２３４５６７", "+33 6 12 34 56 78", "(030)\u{A0}1234\u{A0}5678",
        "+49\u{2012}30\u{2012}123\u{2012}4567",
    ])
    func typographicSeparatorsAreOneNumber(number: String) throws {
        let redactor = Redactor(try Redaction(list: "phones"))
        for (before, after) in [("Tél.\u{A0}:", "merci"), ("call", "now"), ("电话", "谢谢")] {
            #expect(redactor.redact("\(before) \(number) \(after)") == "\(before) [phone] \(after)", "\(number)")
        }
    }

    /// Addresses as a full-width keyboard or a decomposed accent writes them: each whole; mentions kept.
    @Test(arguments: [
        "ａｌｉｃｅ＠ｅｘａｍｐｌｅ．ｃｏｍ", "alice＠example.com", "alice@example．com", "ｂｏｂ﹫ｍａｉｌ．ｅｘａｍｐｌｅ",
        "jose\u{301}@example.com", "jos\u{E9}@exa\u{301}mple.org", "o’neil@example.ie", "ｍａｒｉａ＿９９＠почта．рф",
        "user@domain.cafe\u{301}",
    ])
    func fullWidthAndDecomposedAddressesAreWhole(address: String) throws {
        let redactor = Redactor(try Redaction(list: "emails"))
        for (before, after) in [("mail", "now"), ("邮件", "谢谢"), ("(", ")")] {
            #expect(redactor.redact("\(before) \(address) \(after)") == "\(before) [email] \(after)", "\(address)")
        }
        for kept in ["谢谢@小明。好的", "ｕｓｅｒ＠ｌｏｃａｌｈｏｓｔ", "@ａｌｉｃｅ", "ｘ＠ｙ"] {
            #expect(redactor.redact("a \(kept) b") == "a \(kept) b", "\(kept)")
        }
    }

    @Test func lookalikesStayAsTheyAre() throws {
        let redactor = Redactor(try Redaction(list: "all"))
        var rng = SeededRandom(seed: 99)
        var kept: [String] = [
            "2024-03-01", "2024-03-01 10:30:00", "2024/03/01", "01.03.2024", "1.3.2024", "10.0.0.1", "255.255.255.0",
            "12:30", "v1.2.3", "ID 123456", "3.14159", "user@localhost", "@handle", "example.com", "a@b",
            "mailto", "5f1c0c2e9a4e0b0001a1b2c3", "1,234,567", "+1", "(030)", "x-123-y", "http:/broken",
            "2024–03–01", "01–03–2024", "2024\u{2011}03\u{2011}01", "12\u{A0}345",
        ]
        for _ in 0..<500 {
            // Short numbers, dates and times of any day, and hex ids: never a phone, address or link.
            kept.append(String(Int.random(in: 0...999_999, using: &rng)))
            let year = Int.random(in: 1990...2099, using: &rng)
            let month = Int.random(in: 1...12, using: &rng)
            let day = Int.random(in: 1...28, using: &rng)
            kept.append(String(format: "%04d-%02d-%02d %02d:%02d", year, month, day, day % 24, month * 4))
            kept.append(String(format: "%02d.%02d.%04d", day, month, year))
            kept.append(String((0..<24).map { _ in "0123456789abcdef".randomElement(using: &rng)! }))
        }
        for text in kept { #expect(redactor.redact("x \(text) y") == "x \(text) y", "\(text)") }
    }

    @Test func jsonKeepsItsKeysAndRedactsEveryStringAtAnyDepth() throws {
        let redactor = Redactor(try Redaction(list: "emails", patterns: ["secret-[0-9]+"]))
        let json = #"{"a@b.example":{"list":["x c@d.example y",1,true,null,{"deep":"secret-42"}]},"n":5}"#
        let value = try JSONValue(parsing: redactor.redactJSON(json))
        #expect(value["a@b.example"]?["list"] == .array(["x [email] y", 1, true, nil, ["deep": "[redacted]"]]))
        #expect(redactor.counts == ["emails": 1, "patterns": 1])
        #expect(redactor.redactJSON("not json: e@f.example") == "not json: [email]")
        #expect(redactor.redactJSON(#"{"untouched":"text"}"#) == #"{"untouched":"text"}"#)
    }
}
