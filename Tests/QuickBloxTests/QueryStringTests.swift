import QuickBlox
import Testing

@Suite("QueryString")
struct QueryStringTests {
    /// Pairs as a comparable array (tuples are not Equatable).
    func pairs(_ query: String) -> [[String]] {
        QueryString.parse(query).map { [$0.0, $0.1] }
    }

    @Test func splitsPairsInOrder() {
        #expect(
            pairs("chat_dialog_id=5d75393ba28f9a17e1cb0f9e&limit=100&skip=0&mark_as_read=0") == [
                ["chat_dialog_id", "5d75393ba28f9a17e1cb0f9e"], ["limit", "100"], ["skip", "0"], ["mark_as_read", "0"],
            ])
    }

    @Test func keepsDuplicateKeys() {
        #expect(pairs("name[or]=sam&name[or]=igor") == [["name[or]", "sam"], ["name[or]", "igor"]])
    }

    @Test(arguments: [
        ("sender_id[in]=91419276,91419395", "sender_id%5Bin%5D=91419276%2C91419395"),
        ("sender_id[in]=91419276,91419395", "sender_id%5bin%5d=91419276%2c91419395"),
        ("updated_at[gt]=1556829805", "updated_at%5Bgt%5D=1556829805"),
        ("type[in]=1,2&sort_desc=updated_at", "type%5Bin%5D=1%2C2&sort_desc=updated_at"),
        (
            "data[class_name]=CoolDialog&data[category]=friends",
            "data%5Bclass_name%5D=CoolDialog&data%5Bcategory%5D=friends"
        ),
        ("occupants_ids[all]=1,2", "occupants_ids[all]=1%2C2"),
    ])
    func rawAndEncodedBracketsAndCommasParseEqual(_ raw: String, _ encoded: String) {
        #expect(pairs(raw) == pairs(encoded))
        #expect(!pairs(raw).isEmpty)
    }

    @Test func decodedBracketKeyAndCommaValue() {
        #expect(pairs("sender_id%5Bin%5D=1%2C2") == [["sender_id[in]", "1,2"]])
    }

    @Test func plusIsASpaceAndEncodedPlusIsAPlus() {
        #expect(pairs("message[ctn]=hi+there&q=a%2Bb") == [["message[ctn]", "hi there"], ["q", "a+b"]])
        #expect(QueryString.decode("+++") == "   ")
    }

    @Test func decodesUTF8Sequences() {
        #expect(QueryString.decode("%C3%A9t%C3%A9%20%F0%9F%91%8B") == "été 👋")
        #expect(QueryString.decode("%d0%9f") == "П")
    }

    @Test(arguments: [
        ("100%", "100%"),
        ("%", "%"),
        ("%4", "%4"),
        ("a%zzb", "a%zzb"),
        ("%G1", "%G1"),
        ("%1G", "%1G"),
        ("50%+off", "50% off"),
        ("%%41", "%A"),
        ("%41%", "A%"),
        ("%2", "%2"),
    ])
    func invalidEscapesAreKept(_ text: String, _ expected: String) {
        #expect(QueryString.decode(text) == expected)
    }

    @Test func textWithoutEscapesIsReturnedUnchanged() {
        #expect(QueryString.decode("user[login]") == "user[login]")
        #expect(QueryString.decode("") == "")
    }

    @Test func keysWithoutValuesAndEmptyParts() {
        #expect(pairs("count=1&flag&&empty=&=v") == [["count", "1"], ["flag", ""], ["empty", ""], ["", "v"]])
        #expect(pairs("").isEmpty)
        #expect(pairs("&&").isEmpty)
    }

    @Test func onlyTheFirstEqualsSplits() {
        #expect(pairs("token=abc==&x=a=b") == [["token", "abc=="], ["x", "a=b"]])
    }

    @Test func encodedAmpersandAndEqualsStayInsideValues() {
        #expect(
            pairs("user%5Bpassword%5D=p%40ss%20w%26rd&k%3D=v%3D") == [
                ["user[password]", "p@ss w&rd"], ["k=", "v="],
            ])
    }

    @Test func parsesSubstrings() {
        let url = "/chat/Message.json?chat_dialog_id=abc&limit=10"
        let query = url[url.index(after: url.firstIndex(of: "?")!)...]
        #expect(QueryString.parse(query).map { [$0.0, $0.1] } == [["chat_dialog_id", "abc"], ["limit", "10"]])
    }

    @Test(arguments: [
        ("sender_id[in]", "sender_id%5Bin%5D"),
        ("1,2", "1%2C2"),
        ("p@ss w&rd", "p%40ss%20w%26rd"),
        ("AZaz09-._~", "AZaz09-._~"),
        ("a+b=c/d?e#f", "a%2Bb%3Dc%2Fd%3Fe%23f"),
        ("é👋", "%C3%A9%F0%9F%91%8B"),
        ("", ""),
    ])
    func encodesAllButUnreservedCharacters(_ text: String, _ expected: String) {
        #expect(QueryString.encode(text) == expected)
    }

    @Test func encodesPairs() {
        let query = QueryString.encode([("sender_id[in]", "1,2"), ("message[ctn]", "hi there"), ("limit", "100")])
        #expect(query == "sender_id%5Bin%5D=1%2C2&message%5Bctn%5D=hi%20there&limit=100")
    }

    @Test func encodeThenParseRoundTrips() {
        let original = [
            ["user[password]", "p@ss w&rd+=%"], ["data[class_name]", "CoolDialog"], ["empty", ""],
            ["ünï", "ćødé 👋"], ["a&b", "c=d"],
        ]
        let encoded = QueryString.encode(original.map { ($0[0], $0[1]) })
        #expect(pairs(encoded) == original)
    }

    @Test(arguments: ["p@ss w&rd", "100% +x", "%41", "[]{},;", "ü"])
    func decodeUndoesEncode(_ text: String) {
        #expect(QueryString.decode(QueryString.encode(text)) == text)
    }
}
