import Foundation
import Testing

@testable import QuickBlox

@Suite("JSON parser")
struct JSONParserTests {
    @Test(arguments: [
        ("0", JSONValue.int(0)),
        ("-0", .int(0)),
        ("-9223372036854775808", .int(Int.min)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        ("-9223372036854775809", .double(-9_223_372_036_854_775_809)),
        ("1.0", .double(1)),
        ("1e2", .double(100)),
        ("-2.5E-3", .double(-0.0025)),
        (" \n\t\r[ ] ", .array([])),
        ("{ }", .object([:])),
        (#""\/\b\f\n\r\t\u0041\ud83d\ude00""#, .string("/\u{8}\u{C}\n\r\tA😀")),
        (#"{"a":1,"a":2}"#, .object(["a": 2])),
        // Each object's members apart from those of the objects around and inside it, a repeated key in each.
        (
            #"{"a":1,"b":{"a":2,"c":{},"a":3},"c":[{"a":5},{}],"a":4}"#,
            .object(["a": 4, "b": .object(["a": 3, "c": .object([:])]), "c": [.object(["a": 5]), .object([:])]])
        ),
        (#"[null,true,false,"x",{"k":[1.5]}]"#, .array([nil, true, false, "x", .object(["k": [1.5]])])),
    ])
    func parses(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONValue(parsing: text) == expected)
    }

    @Test(arguments: [
        ("01", 0), ("1.", 2), (".5", 0), ("1e", 2), ("-", 1), ("+1", 0), ("[1,]", 3), ("{\"a\":1,}", 7),
        ("tru", 0), ("nul", 0), ("\"abc", 4), ("\"a\u{1}\"", 2), ("\"\\x\"", 3), ("\"\\u12\"", 3),
        (#""\ud83d""#, 7), (#""\ude00""#, 7), ("[1] x", 4), ("NaN", 0), ("1e999", 5),
    ])
    func rejectsWithOffset(_ text: String, _ offset: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        do {
            _ = try JSONValue(parsing: text)
        } catch {
            #expect(error.offset == offset, "\(error)")
        }
    }

    @Test func rejectsInvalidUTF8() {
        let bytes: [UInt8] = [0x22, 0x61, 0xFF, 0x22]
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: bytes) }
    }

    /// A string's bytes, valid UTF-8 or not, in every length and mix of ASCII and multi-byte sequences: taken
    /// exactly when the standard library's validation takes them, as the same text; refused at the closing quote.
    @Test func takesStringBytesExactlyWhenTheyAreUTF8() throws {
        var random = SeededRandom(seed: 11)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("Zoë".utf8), Array("日本".utf8), Array("😀".utf8), Array("\u{7F}".utf8),
            [0xC3], [0xA9], [0xE6, 0x97], [0xF0, 0x9F, 0x98], [0xFF], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0x80],
        ]
        for _ in 0..<3_000 {
            let count = Int(random.next() % 40)
            let content = (0..<count).flatMap { _ in
                random.next() % 3 == 0 ? pieces[Int(random.next() % UInt64(pieces.count))] : Array("abc de".utf8)
            }
            let document = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
            if let expected = String(validating: content, as: UTF8.self) {
                #expect(try JSONValue(parsing: document) == .string(expected), "\(content)")
            } else {
                #expect(throws: JSONParseError.self, "\(content)") { try JSONValue(parsing: document) }
                do { _ = try JSONValue(parsing: document) } catch { #expect(error.offset == content.count + 1) }
            }
        }
    }

    @Test func refusesDeepNestingWithoutCrashing() throws {
        let ok =
            String(repeating: "[", count: JSONParser.maximumDepth)
            + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONValue(parsing: ok)
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    }

    /// Random documents parsed by this parser and by Foundation's `JSONSerialization` agree.
    @Test func agreesWithFoundationOnRandomDocuments() throws {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let value = randomValue(depth: 0, &random)
            let text = value.jsonString
            let ours = try JSONValue(parsing: text)
            #expect(ours == value, "\(text)")
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            #expect(equal(ours, theirs), "\(text)")
        }
    }

    private func equal(_ value: JSONValue, _ object: Any) -> Bool {
        switch value {
        case .null: return object is NSNull
        case .bool(let flag): return (object as? Bool) == flag
        case .int(let number): return (object as? NSNumber)?.int64Value == Int64(number)
        case .double(let number): return (object as? NSNumber)?.doubleValue == number
        case .string(let text): return (object as? String) == text
        case .array(let elements):
            guard let others = object as? [Any], others.count == elements.count else { return false }
            return zip(elements, others).allSatisfy { equal($0, $1) }
        case .object(let members):
            guard let others = object as? [String: Any], others.count == members.count else { return false }
            return members.allSatisfy { key, member in others[key].map { equal(member, $0) } ?? false }
        }
    }

    private func randomValue(depth: Int, _ random: inout SeededRandom) -> JSONValue {
        switch random.next() % (depth > 3 ? 5 : 7) {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .int(Int(bitPattern: UInt(random.next())) >> Int(random.next() % 64))
        case 3: return .double(Double(Int(random.next() % 2_000_000) - 1_000_000) / 64)
        case 4: return .string(randomString(&random))
        case 5: return .array((0..<Int(random.next() % 5)).map { _ in randomValue(depth: depth + 1, &random) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<Int(random.next() % 5) {
                members[randomString(&random)] = randomValue(depth: depth + 1, &random)
            }
            return .object(members)
        }
    }

    private func randomString(_ random: inout SeededRandom) -> String {
        let pieces = ["a", "Zoë", "\"", "\\", "\n", "\u{1}", "😀", "日本", " ", "/", "\u{7F}", "é"]
        return (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
    }
}
