import QuickBlox
import Testing

@testable import QueryLanguage

/// A `-` or `!` either negates or is refused, a lone `|` is refused, and a value that cannot mean what was typed is
/// refused: each of these was once read silently as something else (a word the index reads without its sign, so
/// `invoice -2024` found 2024; `--from:bob` the text "from bob"; `a|b` the phrase "a b"; `custom.n < abc` every text).
@Suite("Signs, pipes and values that were misread")
struct QuerySignTests {
    static let bob = predicate(.senderID, .equal, [.login("bob")])

    @Test(arguments: [
        ("invoice -2024", QueryExpression.and([word("invoice"), .not(word("2024"))])),
        ("-2024", .not(word("2024"))),
        ("!2024", .not(word("2024"))),
        ("a -٢٠٢٤", .and([word("a"), .not(word("٢٠٢٤"))])),
        ("a -3d", .and([word("a"), .not(word("3d"))])),
        ("a -20*", .and([word("a"), .not(prefix("20"))])),
        ("--refund", .not(.not(word("refund")))),
        ("!-refund", .not(.not(word("refund")))),
        ("!!refund", .not(.not(word("refund")))),
        ("-!refund", .not(.not(word("refund")))),
        ("--from:bob", .not(.not(bob))),
        ("(money)-back", .and([word("money"), .not(word("back"))])),
        (#""money back"-now"#, .and([phrase("money back"), .not(word("now"))])),
        ("money,-back", .and([word("money"), .not(word("back"))])),
        ("a||b", .or([word("a"), word("b")])),
        ("a||-b", .or([word("a"), .not(word("b"))])),
        ("e-mail", word("e-mail")),
        ("x-5", word("x-5")),
    ])
    func signsNegateWhereATermStarts(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    /// Where a value is expected, `-5` is still the number: after a comparison, after `in`, in a list.
    @Test(arguments: [
        ("custom.delta > -5", predicate(.custom("delta"), .greaterThan, [.int(-5)])),
        ("custom.delta >= -2.5", predicate(.custom("delta"), .greaterThanOrEqual, [.string("-2.5")])),
        ("custom.delta in -5", predicate(.custom("delta"), .in, [.int(-5)])),
        ("custom.delta in (1, -5)", predicate(.custom("delta"), .in, [.int(1), .int(-5)])),
        ("custom.delta in (-5,1)", predicate(.custom("delta"), .in, [.int(-5), .int(1)])),
        ("custom.delta in (1,-5)", predicate(.custom("delta"), .in, [.int(1), .int(-5)])),
        ("message ctn -x", predicate(.message, .contains, [.string("-x")])),
        ("custom.delta[gt]=-5", predicate(.custom("delta"), .greaterThan, [.int(-5)])),
    ])
    func negativeValuesStayValues(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test(arguments: ["money|gone", "money |gone", "money|", "|money", "a | b", "a ||| b"])
    func aSinglePipeIsRefused(_ source: String) throws {
        let error = try #require(failure(source))
        #expect(error.message == "a single `|`")
        #expect(Array(source)[error.position] == "|")
    }

    @Test(arguments: [
        "custom.n > abc", "custom.n < 3abc", "custom.n >= \"\"", "custom.n <= 1e", "custom.n > .",
        "custom.n[lt]=x", "custom.n > 1e999", "custom.n > 0x10",
    ])
    func anOrderedCustomBoundMustBeANumber(_ source: String) throws {
        let error = try #require(failure(source))
        #expect(error.message.hasSuffix("is not a number"))
    }

    @Test(arguments: [#"message ctn """#, #"dialog_name ctn """#, #"custom.k ctn """#])
    func anEmptyContainsIsRefused(_ source: String) throws {
        #expect(failure(source)?.message == "an empty text after `ctn`")
    }

    @Test(arguments: [
        ("3", 3.0), (" 3 ", 3), ("-2.5", -2.5), ("+.5", 0.5), ("3.", 3), ("1e1", 10), ("1E+2", 100), ("\t7\n", 7),
    ])
    func numbersOfCustomParameters(_ text: String, _ value: Double) {
        #expect(CustomNumber.value(of: text) == value)
    }

    @Test(arguments: [
        "", " ", "abc", "3abc", "1e", ".", "-", "+-3", "1e999", "0x10", "١٢", "3 4", "nan", "inf", "1_000",
    ])
    func notNumbers(_ text: String) {
        #expect(CustomNumber.value(of: text) == nil)
    }
}

/// Ids as people paste them: spaces around listed values, and a number too large for an id.
@Suite("User ids as pasted")
struct QueryIDValueTests {
    @Test(arguments: [
        ("sender_id[in]=100001,%20100003", predicate(.senderID, .in, [.int(100_001), .int(100_003)])),
        ("sender_id[in]=100001,+100003", predicate(.senderID, .in, [.int(100_001), .int(100_003)])),
        ("read_ids[all]=1,%202", predicate(.readIDs, .all, [.int(1), .int(2)])),
        ("sender_id in (1, 2)", predicate(.senderID, .in, [.int(1), .int(2)])),
        (#"from:" alice ""#, predicate(.senderID, .equal, [.login("alice")])),
    ])
    func spacesAroundAnIdAreNoPartOfIt(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test(arguments: ["sender_id = 99999999999999999999999", "from:123456789012345678901", "to:99999999999999999999"])
    func aNumberTooLargeForAnIdIsRefused(_ source: String) {
        #expect(failure(source)?.message.hasSuffix("is too large for a user id") == true)
    }
}
