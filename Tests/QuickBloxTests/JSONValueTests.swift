import Foundation
import QuickBlox
import Testing

@Suite("JSONValue parsing")
struct JSONValueParsingTests {
    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONValue(
            parsing: #"{"n":null,"t":true,"f":false,"i":-42,"d":1.5,"s":"x","a":[1,"2",null],"o":{"k":"v"}}"#)
        #expect(
            value
                == .object([
                    "n": .null, "t": .bool(true), "f": .bool(false), "i": .int(-42), "d": .double(1.5),
                    "s": .string("x"), "a": .array([.int(1), .string("2"), .null]), "o": .object(["k": .string("v")]),
                ]))
    }

    @Test func keepsIntegersApartFromFloats() throws {
        #expect(try JSONValue(parsing: "1567971414") == .int(1_567_971_414))
        #expect(try JSONValue(parsing: "9223372036854775807") == .int(Int.max))
        #expect(try JSONValue(parsing: "-7") == .int(-7))
        #expect(try JSONValue(parsing: "1567971414.25") == .double(1_567_971_414.25))
        #expect(try JSONValue(parsing: "1e300") == .double(1e300))
        #expect(JSONValue.int(1) != JSONValue.double(1))
    }

    @Test func booleansAreNotNumbers() throws {
        #expect(try JSONValue(parsing: "[true,1,0,false]") == [true, 1, 0, false])
    }

    @Test func parsesNonASCIIAndEscapes() throws {
        #expect(try JSONValue(parsing: #""Привет \"👋\" \u00e9\n""#) == .string("Привет \"👋\" é\n"))
    }

    @Test(arguments: ["", "{", "{\"a\":}", "[1", "nope", "{\"a\" 1}", "'x'"])
    func rejectsMalformedJSON(_ text: String) {
        #expect(throws: (any Error).self) { try JSONValue(parsing: text) }
    }

    @Test func parsesData() throws {
        #expect(try JSONValue(parsing: Data(#"{"a":[1]}"#.utf8)) == ["a": [1]])
    }

    @Test func literalsBuildTheMatchingCases() {
        let value: JSONValue = ["s": "x", "i": 3, "d": 2.5, "b": true, "n": nil, "a": [1, "two"]]
        #expect(
            value
                == .object([
                    "s": .string("x"), "i": .int(3), "d": .double(2.5), "b": .bool(true), "n": .null,
                    "a": .array([.int(1), .string("two")]),
                ]))
    }

    @Test func accessors() {
        let value: JSONValue = ["list": [1, 2], "name": "Bob", "nothing": nil]
        #expect(value.objectValue?.count == 3)
        #expect(value["list"]?.arrayValue == [.int(1), .int(2)])
        #expect(value["name"]?.stringValue == "Bob")
        #expect(value["nothing"]?.isNull == true)
        #expect(value["absent"] == nil)
        #expect(value["name"]?["x"] == nil)
        #expect(JSONValue.int(1).objectValue == nil)
        #expect(JSONValue.int(1).arrayValue == nil)
        #expect(JSONValue.int(1).stringValue == nil)
        #expect(JSONValue.string("").isNull == false)
    }

    @Test func codableRoundTripThroughFoundation() throws {
        let value: JSONValue = ["a": [1, 2.5, "x", nil, true], "b": ["c": -3]]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
        #expect(try JSONValue(parsing: data) == value)
    }
}

@Suite("JSONValue serialization")
struct JSONValueSerializationTests {
    @Test func objectKeysAreSorted() {
        let value: JSONValue = ["b": 1, "a": 2, "C": 3, "_id": "x", "aa": ["z": 1, "y": 2]]
        #expect(value.jsonString == #"{"C":3,"_id":"x","a":2,"aa":{"y":2,"z":1},"b":1}"#)
    }

    @Test func outputIsCompact() {
        let value: JSONValue = ["items": [1, 2, ["k": nil]], "ok": false]
        #expect(value.jsonString == #"{"items":[1,2,{"k":null}],"ok":false}"#)
    }

    @Test func serializedBytesMatchJSONString() {
        let value: JSONValue = ["name": "Zoë", "n": 1]
        #expect(value.serialized() == Array(value.jsonString.utf8))
        #expect(value.serialized() == Array(#"{"n":1,"name":"Zoë"}"#.utf8))
    }

    @Test func writeIntoAppends() {
        var out = Array("prefix:".utf8)
        JSONValue.array([1, "a"]).write(into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"prefix:[1,"a"]"#)
    }

    @Test(arguments: [
        (JSONValue.int(1_567_971_414), "1567971414"),
        (.int(0), "0"),
        (.int(-343), "-343"),
        (.int(Int.max), "9223372036854775807"),
        (.int(Int.min), "-9223372036854775808"),
        (.double(1.5), "1.5"),
        (.double(2), "2.0"),
        (.double(-0.25), "-0.25"),
        (.double(1_567_971_414), "1567971414.0"),
        (.double(.nan), "null"),
        (.double(.infinity), "null"),
        (.double(-.infinity), "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.null, "null"),
        (.array([]), "[]"),
        (.object([:]), "{}"),
    ])
    func scalars(_ value: JSONValue, _ expected: String) {
        #expect(value.jsonString == expected)
    }

    @Test func doublesSurviveARoundTrip() throws {
        for number in [0.1, 1e-7, 123_456.789, 1e20, -2.5e-3] {
            let text = JSONValue.double(number).jsonString
            #expect(try JSONValue(parsing: text) == .double(number), "\(text)")
        }
    }

    @Test func escapesQuotesBackslashesAndControlCharacters() {
        let value = JSONValue.string("say \"hi\" \\ path\n\r\t\u{0}\u{1}\u{8}\u{C}\u{1B}\u{1F}")
        #expect(value.jsonString == #""say \"hi\" \\ path\n\r\t\u0000\u0001\u0008\u000c\u001b\u001f""#)
    }

    @Test func escapesKeysToo() {
        let value: JSONValue = ["a\"b\n": 1]
        #expect(value.jsonString == #"{"a\"b\n":1}"#)
    }

    @Test func leavesSlashDeleteAndNonASCIIRaw() {
        let text = "a/b \u{7F} é Привет 你好 👋 \u{2028}"
        let value = JSONValue.string(text)
        #expect(value.jsonString == "\"" + text + "\"")
        #expect(value.serialized() == [UInt8(ascii: "\"")] + Array(text.utf8) + [UInt8(ascii: "\"")])
    }

    @Test func escapedOutputParsesBackToTheSameString() throws {
        let text = "q\"b\\s\n\r\t\u{1}\u{1F}/é👋"
        #expect(try JSONValue(parsing: JSONValue.string(text).jsonString) == .string(text))
    }

    @Test func writeStringWritesALiteral() {
        var out: [UInt8] = []
        JSONValue.writeString("a\"b", into: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""a\"b""#)
    }

    @Test func compactSortedDocumentsRoundTripByteForByte() throws {
        let text =
            #"{"_id":"5d76a618a28f9a1edfcb0f9b","age":"25","attachments":[{"id":"47863","type":"image"}],"#
            + #""date_sent":1568056856,"ratio":0.5,"recipient_id":null,"text":"Hi \"guys\"\n👋"}"#
        #expect(try JSONValue(parsing: text).jsonString == text)
    }
}

@Suite("JSONValue lenient readers")
struct JSONValueLenientTests {
    @Test(arguments: [
        (JSONValue.int(1_567_971_414), 1_567_971_414 as Int?),
        (.int(-5), -5),
        (.double(1_567_971_414), 1_567_971_414),
        (.double(1_567_971_414.75), 1_567_971_414),
        (.double(0.5), 0),
        (.string("1567971414"), 1_567_971_414),
        (.string(" 42 "), 42),
        (.string("-3"), -3),
        (.string("1567971414.5"), 1_567_971_414),
        (.string("1.567971414e9"), 1_567_971_414),
        (.bool(true), 1),
        (.bool(false), 0),
        (.string(""), nil),
        (.string("abc"), nil),
        (.string("12abc"), nil),
        (.string("nan"), nil),
        (.string("inf"), nil),
        (.double(.nan), nil),
        (.double(.infinity), nil),
        (.null, nil),
        (.array([1]), nil),
        (.object(["a": 1]), nil),
    ])
    func lenientInt(_ value: JSONValue, _ expected: Int?) {
        #expect(value.lenientInt == expected)
    }

    @Test(arguments: [JSONValue.double(1e300), .double(-1e300), .double(9.3e18), .string("1e300"), .string("-1e19")])
    func lenientIntIsNilOutsideTheIntRange(_ value: JSONValue) {
        #expect(value.lenientInt == nil)
    }

    @Test(arguments: [
        (JSONValue.string("47863"), "47863" as String?),
        (.string(""), ""),
        (.int(47863), "47863"),
        (.int(-1), "-1"),
        (.double(47863), "47863"),
        (.double(1.5), "1.5"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.null, nil),
        (.array(["a"]), nil),
        (.object(["a": "b"]), nil),
    ])
    func lenientString(_ value: JSONValue, _ expected: String?) {
        #expect(value.lenientString == expected)
    }

    @Test(arguments: [
        (JSONValue.array([1, "2", 3.0, "x", nil]), [1, 2, 3]),
        (.array([]), []),
        (.string("1,2,3"), [1, 2, 3]),
        (.string("96753878, 96754523"), [96_753_878, 96_754_523]),
        (.string(""), []),
        (.int(7), [7]),
        (.null, []),
        (.object(["a": 1]), []),
        (.bool(true), []),
    ])
    func lenientIntArray(_ value: JSONValue, _ expected: [Int]) {
        #expect(value.lenientIntArray == expected)
    }
}
