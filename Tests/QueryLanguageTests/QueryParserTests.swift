import Testing

@testable import QueryLanguage

/// 2024-03-10T15:30:00Z, a Sunday: relative dates in these tests are measured from it.
let testNow = 1_710_084_600
let parser = QueryParser(now: testNow)

func predicate(_ field: QueryField, _ op: QueryOperator, _ values: [QueryValue]) -> QueryExpression {
    .predicate(QueryPredicate(field: field, op: op, values: values, range: 0..<0))
}

/// The expression with every range zeroed, to compare structure and values only.
func shape(_ expression: QueryExpression) -> QueryExpression {
    switch expression {
    case .and(let children): return .and(children.map(shape))
    case .or(let children): return .or(children.map(shape))
    case .not(let child): return .not(shape(child))
    case .text(var term):
        term.range = 0..<0
        return .text(term)
    case .predicate(var predicate):
        predicate.range = 0..<0
        return .predicate(predicate)
    }
}

func parsed(_ source: String) throws -> QueryExpression {
    shape(try parser.parse(source).root)
}

@Suite("Query parser")
struct QueryParserTests {
    @Test(arguments: [
        ("refund", QueryExpression.text(TextTerm(kind: .word, text: "refund", range: 0..<0))),
        ("refu*", .text(TextTerm(kind: .prefix, text: "refu", range: 0..<0))),
        (#""money back""#, .text(TextTerm(kind: .phrase, text: "money back", range: 0..<0))),
        ("john.doe@mail.com", .text(TextTerm(kind: .word, text: "john.doe@mail.com", range: 0..<0))),
        ("C++", .text(TextTerm(kind: .word, text: "C++", range: 0..<0))),
        ("http://x.io/a", .text(TextTerm(kind: .word, text: "http://x.io/a", range: 0..<0))),
        (#""say \"hi\"""#, .text(TextTerm(kind: .phrase, text: #"say "hi""#, range: 0..<0))),
    ])
    func textTerms(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test(arguments: [
        ("from:alice", predicate(.senderID, .equal, [.login("alice")])),
        ("sender_id = 34", predicate(.senderID, .equal, [.int(34)])),
        ("to != 5", predicate(.recipientID, .notEqual, [.int(5)])),
        ("recipient_id >= 5", predicate(.recipientID, .greaterOrEqual, [.int(5)])),
        ("message ctn refund", predicate(.message, .contains, [.string("refund")])),
        (#"text = "hi there""#, predicate(.message, .equal, [.string("hi there")])),
        ("dialog:abc123", predicate(.dialog, .equal, [.string("abc123")])),
        ("chat_dialog_id in (a, b)", predicate(.dialog, .in, [.string("a"), .string("b")])),
        ("dialog_type:private", predicate(.dialogType, .equal, [.int(3)])),
        ("dialog_type nin (group, 1)", predicate(.dialogType, .notIn, [.int(2), .int(1)])),
        ("dialog_name ctn café", predicate(.dialogName, .contains, [.string("café")])),
        ("attachments.type = image", predicate(.attachmentType, .equal, [.string("image")])),
        ("attachment_type in (audio,video)", predicate(.attachmentType, .in, [.string("audio"), .string("video")])),
        ("has:attachment", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("read_ids all (1, 2)", predicate(.readIDs, .all, [.int(1), .int(2)])),
        ("occupants_ids < 10", predicate(.occupantsIDs, .less, [.int(10)])),
        ("edited = yes", predicate(.edited, .equal, [.bool(true)])),
        ("deleted != false", predicate(.deleted, .notEqual, [.bool(false)])),
        ("custom.priority > 2", predicate(.custom("priority"), .greater, [.int(2)])),
        (#"custom.label = "7""#, predicate(.custom("label"), .equal, [.string("7")])),
        ("custom.order_id ctn X-1", predicate(.custom("order_id"), .contains, [.string("X-1")])),
        ("custom.delta > -5", predicate(.custom("delta"), .greater, [.int(-5)])),
        ("FROM:bob", predicate(.senderID, .equal, [.login("bob")])),
    ])
    func predicates(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test func restFormAsCopiedFromAQuickBloxRequest() throws {
        #expect(
            try parsed("sender_id[in]=34,45&message[ctn]=refund%20now")
                == .and([
                    predicate(.senderID, .in, [.int(34), .int(45)]),
                    predicate(.message, .contains, [.string("refund now")]),
                ]))
        #expect(
            try parsed("date_sent[gte]=1709251200")
                == predicate(.dateSent, .greaterOrEqual, [.period(start: 1_709_251_200, end: 1_709_251_201)]))
        #expect(try parsed("message[ctn]=a,b+c") == predicate(.message, .contains, [.string("a,b c")]))
        #expect(try parsed("recipient_id[ne]=7") == predicate(.recipientID, .notEqual, [.int(7)]))
        #expect(try parsed("sender_id=7") == predicate(.senderID, .equal, [.int(7)]))
    }

    @Test func booleanStructureAndPrecedence() throws {
        let a = QueryExpression.text(TextTerm(kind: .word, text: "a", range: 0..<0))
        let b = QueryExpression.text(TextTerm(kind: .word, text: "b", range: 0..<0))
        let c = QueryExpression.text(TextTerm(kind: .word, text: "c", range: 0..<0))
        #expect(try parsed("a b c") == .and([a, b, c]))
        #expect(try parsed("a AND b and c") == .and([a, b, c]))
        #expect(try parsed("a or b c") == .or([a, .and([b, c])]))
        #expect(try parsed("a OR b OR c") == .or([a, b, c]))
        #expect(try parsed("not a b") == .and([.not(a), b]))
        #expect(try parsed("-a -from:bob") == .and([.not(a), .not(predicate(.senderID, .equal, [.login("bob")]))]))
        #expect(try parsed("(a or b) c") == .and([.or([a, b]), c]))
        #expect(try parsed("NOT (a OR b)") == .not(.or([a, b])))
        #expect(try parsed("e-mail") == .text(TextTerm(kind: .word, text: "e-mail", range: 0..<0)))
        #expect(try parsed("a, b") == .and([a, b]))
        #expect(try parsed(#""and""#) == .text(TextTerm(kind: .phrase, text: "and", range: 0..<0)))
    }

    @Test func rangesPointIntoTheSource() throws {
        let query = try parser.parse("refund  from:alice")
        guard case .and(let children) = query.root, case .predicate(let p) = children[1],
            case .text(let t) = children[0]
        else {
            Issue.record("unexpected shape \(query.root)")
            return
        }
        #expect(t.range == 0..<6)
        #expect(p.range == 8..<18)
    }
}
