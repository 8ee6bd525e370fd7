import QuickBlox
import Testing

@testable import QueryLanguage

@Suite("Query parser")
struct QueryParserTests {
    @Test(arguments: [
        ("refund", word("refund")),
        ("refu*", prefix("refu")),
        (#""money back""#, phrase("money back")),
        ("john.doe@mail.com", word("john.doe@mail.com")),
        ("NEAR", word("NEAR")),
        ("C++", word("C++")),
        ("http://x.io/a?b", word("http://x.io/a?b")),
        ("10:00", word("10:00")),
        ("e-mail", word("e-mail")),
        ("café", word("café")),
        ("👍🏽", word("👍🏽")),
        ("Re:", word("Re:")),
        ("北京", word("北京")),
        ("🎉", word("🎉")),
        ("ελλάδα", word("ελλάδα")),
        ("mailto://x", word("mailto://x")),
        ("-5", .not(word("5"))),
        ("in", word("in")),
        ("message", word("message")),
        ("100%25", word("100%25")),
        (#""say \"hi\" \\o/""#, phrase(#"say "hi" \o/"#)),
        (#""and""#, phrase("and")),
    ])
    func textTerms(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    /// Every field by every name, in the `name:value` form.
    @Test(arguments: [
        ("message:hi", predicate(.message, .equal, [.string("hi")])),
        ("text:hi", predicate(.message, .equal, [.string("hi")])),
        ("sender_id:34", predicate(.senderID, .equal, [.int(34)])),
        ("from:alice", predicate(.senderID, .equal, [.login("alice")])),
        ("sender:alice", predicate(.senderID, .equal, [.login("alice")])),
        ("FROM:Bob", predicate(.senderID, .equal, [.login("Bob")])),
        ("recipient_id:5", predicate(.recipientID, .equal, [.int(5)])),
        ("to:bob", predicate(.recipientID, .equal, [.login("bob")])),
        ("recipient:bob", predicate(.recipientID, .equal, [.login("bob")])),
        ("dialog:abc123", predicate(.dialog, .equal, [.string("abc123")])),
        ("chat_dialog_id:abc123", predicate(.dialog, .equal, [.string("abc123")])),
        ("dialog_id:42", predicate(.dialog, .equal, [.string("42")])),
        ("dialog_type:private", predicate(.dialogType, .equal, [.int(3)])),
        ("dialog_type:group", predicate(.dialogType, .equal, [.int(2)])),
        ("dialog_type:PUBLIC", predicate(.dialogType, .equal, [.int(1)])),
        ("dialog_type:3", predicate(.dialogType, .equal, [.int(3)])),
        ("dialog_name:Support", predicate(.dialogName, .equal, [.string("Support")])),
        ("date_sent:2024-03-01", predicate(.dateSent, .equal, [.period(start: march2024, end: march2024 + day)])),
        ("date:2024-03-01", predicate(.dateSent, .equal, [.period(start: march2024, end: march2024 + day)])),
        ("updated_at:2024-03-01", predicate(.updatedAt, .equal, [.period(start: march2024, end: march2024 + day)])),
        ("attachments.type:image", predicate(.attachmentType, .equal, [.string("image")])),
        ("attachment_type:image", predicate(.attachmentType, .equal, [.string("image")])),
        ("has:attachment", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("has:Attachments", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("read_ids:7", predicate(.readIDs, .equal, [.int(7)])),
        ("occupants_ids:7", predicate(.occupantsIDs, .equal, [.int(7)])),
        ("edited:true", predicate(.edited, .equal, [.bool(true)])),
        ("edited:no", predicate(.edited, .equal, [.bool(false)])),
        ("deleted:yes", predicate(.deleted, .equal, [.bool(true)])),
        ("deleted:0", predicate(.deleted, .equal, [.bool(false)])),
        ("is:hidden", predicate(.hidden, .equal, [.bool(true)])),
        ("IS:Deleted", predicate(.deleted, .equal, [.bool(true)])),
        ("is:edited", predicate(.edited, .equal, [.bool(true)])),
        ("hidden:no", predicate(.hidden, .equal, [.bool(false)])),
        ("hidden_for:7", predicate(.hiddenFor, .equal, [.int(7)])),
        ("hidden_for:alice", predicate(.hiddenFor, .equal, [.login("alice")])),
        ("hidden_for in (3, 4)", predicate(.hiddenFor, .in, [.int(3), .int(4)])),
        ("custom.priority:2", predicate(.custom("priority"), .equal, [.int(2)])),
        ("Custom.Order-ID.v2:x", predicate(.custom("Order-ID.v2"), .equal, [.string("x")])),
    ])
    func fieldsAndAliases(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test(arguments: [
        ("sender_id = 34", predicate(.senderID, .equal, [.int(34)])),
        ("to != 5", predicate(.recipientID, .notEqual, [.int(5)])),
        ("recipient_id < 5", predicate(.recipientID, .lessThan, [.int(5)])),
        ("recipient_id <= 5", predicate(.recipientID, .lessThanOrEqual, [.int(5)])),
        ("sender_id > 5", predicate(.senderID, .greaterThan, [.int(5)])),
        ("sender_id >= 5", predicate(.senderID, .greaterThanOrEqual, [.int(5)])),
        ("from in (alice, 7)", predicate(.senderID, .in, [.login("alice"), .int(7)])),
        ("from NIN (alice)", predicate(.senderID, .notIn, [.login("alice")])),
        ("read_ids all (1, 2)", predicate(.readIDs, .all, [.int(1), .int(2)])),
        ("occupants_ids ALL (3)", predicate(.occupantsIDs, .all, [.int(3)])),
        ("message ctn refund", predicate(.message, .contains, [.string("refund")])),
        (#"text = "hi there""#, predicate(.message, .equal, [.string("hi there")])),
        ("message != x", predicate(.message, .notEqual, [.string("x")])),
        ("chat_dialog_id in (a, b)", predicate(.dialog, .in, [.string("a"), .string("b")])),
        ("dialog_type nin (group, 1)", predicate(.dialogType, .notIn, [.int(2), .int(1)])),
        ("dialog_name ctn café", predicate(.dialogName, .contains, [.string("café")])),
        ("dialog_name in (\"A B\", C)", predicate(.dialogName, .in, [.string("A B"), .string("C")])),
        ("attachment_type in (audio,video)", predicate(.attachmentType, .in, [.string("audio"), .string("video")])),
        ("has = attachment", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("deleted != false", predicate(.deleted, .notEqual, [.bool(false)])),
        ("custom.priority > 2", predicate(.custom("priority"), .greaterThan, [.int(2)])),
        ("custom.delta > -5", predicate(.custom("delta"), .greaterThan, [.int(-5)])),
        (#"custom.label = "7""#, predicate(.custom("label"), .equal, [.string("7")])),
        ("custom.order_id ctn X-1", predicate(.custom("order_id"), .contains, [.string("X-1")])),
        ("custom.k nin (1, b)", predicate(.custom("k"), .notIn, [.int(1), .string("b")])),
        ("sender_id in 1, 2", predicate(.senderID, .in, [.int(1), .int(2)])),
        ("from:\"alice smith\"", predicate(.senderID, .equal, [.login("alice smith")])),
        ("custom.url = http://x.io/a", predicate(.custom("url"), .equal, [.string("http://x.io/a")])),
    ])
    func operators(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    static let allowed: [(field: String, value: String, operators: Set<String>)] = [
        ("message", "hi", ["=", "!=", "ctn"]),
        ("sender_id", "5", ["=", "!=", "<", "<=", ">", ">=", "in", "nin"]),
        ("recipient_id", "5", ["=", "!=", "<", "<=", ">", ">=", "in", "nin"]),
        ("read_ids", "5", ["=", "!=", "<", "<=", ">", ">=", "in", "nin", "all"]),
        ("occupants_ids", "5", ["=", "!=", "<", "<=", ">", ">=", "in", "nin", "all"]),
        ("dialog", "abc", ["=", "!=", "in", "nin"]),
        ("dialog_type", "group", ["=", "!=", "in", "nin"]),
        ("dialog_name", "x", ["=", "!=", "ctn", "in", "nin"]),
        ("date_sent", "2024-03", ["=", "!=", "<", "<=", ">", ">=", "in"]),
        ("updated_at", "2024-03", ["=", "!=", "<", "<=", ">", ">=", "in"]),
        ("attachments.type", "image", ["=", "!=", "in", "nin"]),
        ("has", "attachment", ["="]),
        ("edited", "true", ["=", "!="]),
        ("deleted", "true", ["=", "!="]),
        ("custom.k", "3", ["=", "!=", "<", "<=", ">", ">=", "ctn", "in", "nin"]),
    ]

    /// Every operator on every field: accepted exactly where allowed, else an error at the operator.
    @Test(arguments: allowed)
    func operatorsPerField(_ field: String, _ value: String, _ operators: Set<String>) throws {
        for op in FilterOperator.queryOperators {
            let source = op.takesList ? "\(field) \(op.symbol) (\(value))" : "\(field) \(op.symbol) \(value)"
            if operators.contains(op.symbol) {
                guard case .predicate(let predicate) = try parser.parse(source).root else {
                    Issue.record("`\(source)` is not a predicate")
                    continue
                }
                #expect(predicate.op == op && predicate.values.count == 1 && predicate.range == 0..<source.count)
            } else if let error = failure(source) {
                #expect(error.message == "`\(op.symbol)` is not allowed on `\(field)`", "\(source)")
                #expect(error.position == field.count + 1 && error.length == op.symbol.count, "\(source)")
            }
        }
    }

    @Test func operatorHintListsWhatIsAllowed() {
        #expect(failure("sender_id ctn 4")?.hint == "use =, !=, <, <=, >, >=, in, nin")
        #expect(failure("message < 4")?.hint == "use =, !=, ctn")
    }

    @Test func booleanStructureAndPrecedence() throws {
        let (a, b, c) = (word("a"), word("b"), word("c"))
        #expect(try parsed("a b c") == .and([a, b, c]))
        #expect(try parsed("a AND b and c") == .and([a, b, c]))
        #expect(try parsed("a & b&c") == .and([a, b, c]))
        #expect(try parsed("a or b c") == .or([a, .and([b, c])]))
        #expect(try parsed("a or b and c") == .or([a, .and([b, c])]))
        #expect(try parsed("a b or c") == .or([.and([a, b]), c]))
        #expect(try parsed("a OR b Or c") == .or([a, b, c]))
        #expect(try parsed("(a or b) or c") == .or([a, b, c]))
        #expect(try parsed("(a b) (c)") == .and([a, b, c]))
        #expect(try parsed("not a b") == .and([.not(a), b]))
        #expect(try parsed("not a or b") == .or([.not(a), b]))
        #expect(try parsed("Not not a") == .not(.not(a)))
        #expect(try parsed("NOT (a OR b)") == .not(.or([a, b])))
        #expect(try parsed("(a or b) c") == .and([.or([a, b]), c]))
        #expect(try parsed("a and (b or c)") == .and([a, .or([b, c])]))
        #expect(try parsed("((a))") == a)
        #expect(try parsed("a, b") == .and([a, b]))
        #expect(try parsed("i believe in you") == .and([word("i"), word("believe"), word("in"), word("you")]))
        #expect(try parsed("test: x") == .and([word("test:"), word("x")]))
    }

    @Test func minusPrefix() throws {
        let bob = predicate(.senderID, .equal, [.login("bob")])
        #expect(try parsed("-spam") == .not(word("spam")))
        #expect(try parsed("-a -from:bob") == .and([.not(word("a")), .not(bob)]))
        #expect(try parsed("-(a or b)") == .not(.or([word("a"), word("b")])))
        #expect(try parsed(#"-"money back""#) == .not(phrase("money back")))
        #expect(try parsed("x&-y") == .and([word("x"), .not(word("y"))]))
        #expect(try parsed("---a") == .not(.not(.not(word("a")))))
        #expect(
            failure("a - b")?.message
                == "`-` has nothing a word search can find: words are letters, digits, emoji and symbols")
        #expect(try parsed("!spam") == .not(word("spam")))
        #expect(try parsed("a !(b or c)") == .and([word("a"), .not(.or([word("b"), word("c")]))]))
    }

    @Test func rangesPointIntoTheSource() throws {
        let query = try parser.parse("refund  from:alice (sender_id in (1, 2))")
        #expect(query.source == "refund  from:alice (sender_id in (1, 2))")
        guard case .and(let children) = query.root, children.count == 3, case .text(let term) = children[0],
            case .predicate(let from) = children[1], case .predicate(let list) = children[2]
        else {
            Issue.record("unexpected shape \(query.root)")
            return
        }
        #expect(term.range == 0..<6)
        #expect(from.range == 8..<18)
        #expect(list.range == 20..<39)
        guard case .text(let phrase) = try parser.parse(#"  "b c""#).root else { return }
        #expect(phrase.range == 2..<7)
    }
}
