import QuickBlox
import Testing

@testable import QueryLanguage

/// QuickBlox's REST filter form, `field[op]=value`, as copied from a request.
@Suite("Query REST form")
struct QueryRestFormTests {
    @Test func theIssuesExample() throws {
        let query = try parser.parse("sender_id[in]=34,45&message[ctn]=refund")
        #expect(
            shape(query.root)
                == .and([
                    predicate(.senderID, .in, [.int(34), .int(45)]),
                    predicate(.message, .contains, [.string("refund")]),
                ]))
        guard case .and(let children) = query.root, case .predicate(let first) = children[0],
            case .predicate(let second) = children[1]
        else { return }
        #expect(first.range == 0..<19)
        #expect(second.range == 20..<39)
    }

    @Test(arguments: [
        ("sender_id=7", predicate(.senderID, .equal, [.int(7)])),
        ("from=alice", predicate(.senderID, .equal, [.login("alice")])),
        ("recipient_id[ne]=7", predicate(.recipientID, .notEqual, [.int(7)])),
        ("sender_id[lt]=7", predicate(.senderID, .lessThan, [.int(7)])),
        ("sender_id[lte]=7", predicate(.senderID, .lessThanOrEqual, [.int(7)])),
        ("sender_id[gt]=7", predicate(.senderID, .greaterThan, [.int(7)])),
        ("sender_id[GTE]=7", predicate(.senderID, .greaterThanOrEqual, [.int(7)])),
        ("sender_id[nin]=1,2,3", predicate(.senderID, .notIn, [.int(1), .int(2), .int(3)])),
        ("read_ids[all]=1,2", predicate(.readIDs, .all, [.int(1), .int(2)])),
        ("dialog_type[in]=1,private", predicate(.dialogType, .in, [.int(1), .int(3)])),
        ("message[ctn]=refund%20now", predicate(.message, .contains, [.string("refund now")])),
        ("message[ctn]=a,b+c", predicate(.message, .contains, [.string("a,b c")])),
        ("message[ctn]=%E2%82%AC5", predicate(.message, .contains, [.string("€5")])),
        ("message[ctn]=100%", predicate(.message, .contains, [.string("100%")])),
        ("chat_dialog_id[in]=a%2Cb,c", predicate(.dialog, .in, [.string("a,b"), .string("c")])),
        ("custom.city=New%20York", predicate(.custom("city"), .equal, [.string("New York")])),
        ("custom.level[gte]=3", predicate(.custom("level"), .greaterThanOrEqual, [.int(3)])),
        (#"message[ctn]="money back""#, predicate(.message, .contains, [.string("money back")])),
        (#"message="50%20off""#, predicate(.message, .equal, [.string("50%20off")])),
        (
            "date_sent[gte]=1709251200",
            predicate(.dateSent, .greaterThanOrEqual, [.period(start: 1_709_251_200, end: 1_709_251_201)])
        ),
        ("date_sent[in]=2024-03", predicate(.dateSent, .in, [.period(start: march2024, end: march2024 + 31 * day)])),
        (
            "date_sent[lt]=2024-03-01T10:00:00%2B02:00",
            predicate(.dateSent, .lessThan, [.period(start: march2024 + 28_800, end: march2024 + 28_801)])
        ),
        (
            "date_sent[lt]=2024-03-01T10:00:00+02:00",
            predicate(.dateSent, .lessThan, [.period(start: march2024 + 28_800, end: march2024 + 28_801)])
        ),
    ])
    func operatorsAndValues(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test func mixesWithTheLanguage() throws {
        let five = predicate(.senderID, .equal, [.int(5)])
        let six = predicate(.recipientID, .equal, [.int(6)])
        #expect(try parsed("(sender_id=5 or to=6) refund") == .and([.or([five, six]), word("refund")]))
        #expect(try parsed("sender_id=5 & to=6") == .and([five, six]))
        #expect(try parsed("-sender_id=5") == .not(five))
        #expect(try parsed("sender_id = 5") == five)
        // Percent-decoding belongs to the REST form only.
        #expect(try parsed("message = a+b%20c") == predicate(.message, .equal, [.string("a+b%20c")]))
    }

    @Test func aWordWithBracketsThatIsNoFilterStaysAWord() throws {
        #expect(try parsed("a[1]") == word("a[1]"))
        #expect(try parsed("x[lt]") == word("x[lt]"))
    }
}
