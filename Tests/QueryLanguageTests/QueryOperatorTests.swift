import Foundation
import QuickBlox
import Testing

@testable import QueryLanguage

/// The operators of Slack, Gmail and Discord, other languages' operators, missing colons, contradictions and
/// time zones: each rule with more cases than docs/query-language.md shows.
@Suite("Search operators and mistaken queries")
struct QueryOperatorTests {
    static let march1 = QueryValue.period(start: march2024, end: march2024 + day)
    static let march = QueryValue.period(start: march2024, end: march2024 + 31 * day)
    static let year2024 = QueryValue.period(start: 1_704_067_200, end: 1_735_689_600)

    @Test(arguments: [
        ("before:2024-03-01", predicate(.dateSent, .lessThan, [march1])),
        ("after:2024-03-01", predicate(.dateSent, .greaterThan, [march1])),
        ("AFTER:2024-03", predicate(.dateSent, .greaterThan, [march])),
        ("on:2024-03-01", predicate(.dateSent, .in, [march1])),
        ("during:2024-03", predicate(.dateSent, .in, [march])),
        ("during:2024", predicate(.dateSent, .in, [year2024])),
        ("has:attachment", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("has:Attachments", predicate(.hasAttachment, .equal, [.bool(true)])),
        ("has:image", predicate(.attachmentType, .in, [.string("image"), .string("photo")])),
        ("has:photos", predicate(.attachmentType, .in, [.string("image"), .string("photo")])),
        ("has:video", predicate(.attachmentType, .equal, [.string("video")])),
        ("has:video", predicate(.attachmentType, .equal, [.string("video")])),
        ("has:audio", predicate(.attachmentType, .equal, [.string("audio")])),
        ("has:file", predicate(.attachmentType, .equal, [.string("file")])),
        ("has:location", predicate(.attachmentType, .equal, [.string("location")])),
        ("has:link", predicate(.hasLink, .equal, [.bool(true)])),
        ("is:edited", predicate(.edited, .equal, [.bool(true)])),
        ("is:deleted", predicate(.deleted, .equal, [.bool(true)])),
        ("IS:Hidden", predicate(.hidden, .equal, [.bool(true)])),
        ("is:private", predicate(.dialogType, .equal, [.int(3)])),
        ("is:group", predicate(.dialogType, .equal, [.int(2)])),
        ("is:public", predicate(.dialogType, .equal, [.int(1)])),
        ("in:general", predicate(.dialog, .equal, [.string("general")])),
        (#"in:"Book club""#, predicate(.dialog, .equal, [.string("Book club")])),
        ("from:alice", predicate(.senderID, .equal, [.login("alice")])),
        (#"from:"Alice Martin""#, predicate(.senderID, .equal, [.login("Alice Martin")])),
        ("to:7", predicate(.recipientID, .equal, [.int(7)])),
        ("-is:private", .not(predicate(.dialogType, .equal, [.int(3)]))),
        ("!has:link", .not(predicate(.hasLink, .equal, [.bool(true)]))),
    ])
    func operatorsFromOtherTools(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    @Test func datesAreReadInTheQueryZone() throws {
        let berlin = try #require(TimeZone(identifier: "Europe/Berlin"))
        let local = QueryParser(now: testNow, zone: berlin)
        // 2024-03-01 in Berlin (UTC+1 in winter) starts at 23:00 UTC the day before.
        #expect(
            shape(try local.parse("on:2024-03-01").root)
                == predicate(.dateSent, .in, [.period(start: march2024 - 3_600, end: march2024 + day - 3_600)]))
        // The day summer time starts lasts 23 hours.
        let summer = try #require(QueryDate.period("2024-03-31", now: testNow, zone: berlin))
        #expect(summer.end - summer.start == 23 * 3_600)
        // A value with its own offset, unix seconds and relative values are the same in every zone.
        #expect(try local.parse("date = 2024-03-01T10:00Z").root.sourceRange != nil)
        #expect(
            shape(try local.parse("date = 2024-03-01T10:00Z").root)
                == predicate(.dateSent, .equal, [.period(start: march2024 + 36_000, end: march2024 + 36_001)]))
        #expect(shape(try local.parse("date > 7d").root) == (try parsed("date > 7d")))
        let offset = QueryParser(now: testNow, zone: try #require(QueryZone.named("+05:30")))
        #expect(
            shape(try offset.parse("during:2024-03").root)
                == predicate(.dateSent, .in, [.period(start: march2024 - 19_800, end: march2024 + 31 * day - 19_800)]))
    }

    @Test(arguments: [
        ("UTC", 0), ("utc", 0), ("Z", 0), ("+02:00", 7_200), ("-0530", -19_800), ("+5", 18_000), ("-11", -39_600),
    ])
    func zones(_ text: String, _ offset: Int) throws {
        let zone = try #require(QueryZone.named(text))
        #expect(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 0)) == offset)
    }

    @Test(arguments: ["Mars/Olympus", "+25:00", "+1:2:3", "12", "local time", "Europe/"])
    func notZones(_ text: String) {
        #expect(QueryZone.named(text) == nil)
    }

    @Test(arguments: [
        ("text contains refund", predicate(.message, .contains, [.string("refund")])),
        ("message CONTAINS \"gift card\"", predicate(.message, .contains, [.string("gift card")])),
        ("sender_id eq 5", predicate(.senderID, .equal, [.int(5)])),
        ("sender_id gte 5", predicate(.senderID, .greaterThanOrEqual, [.int(5)])),
        ("sender_id == 5", predicate(.senderID, .equal, [.int(5)])),
        ("sender_id <> 5", predicate(.senderID, .notEqual, [.int(5)])),
        ("sender_id not in (1, 2)", predicate(.senderID, .notIn, [.int(1), .int(2)])),
        ("text not contains spam", .not(predicate(.message, .contains, [.string("spam")]))),
        (
            "date between 2024-03-01 and 2024-03-31",
            .and([
                predicate(.dateSent, .greaterThanOrEqual, [march1]),
                predicate(
                    .dateSent, .lessThanOrEqual, [.period(start: march2024 + 30 * day, end: march2024 + 31 * day)]),
            ])
        ),
        (
            "sender_id between 3 and 9",
            .and([
                predicate(.senderID, .greaterThanOrEqual, [.int(3)]), predicate(.senderID, .lessThanOrEqual, [.int(9)]),
            ])
        ),
        ("a && b", .and([word("a"), word("b")])),
        ("a || b", .or([word("a"), word("b")])),
        ("a AND b || c", .or([.and([word("a"), word("b")]), word("c")])),
    ])
    func otherLanguagesOperatorsThatMeanOneThing(_ source: String, _ expected: QueryExpression) throws {
        #expect(try parsed(source) == expected)
    }

    /// `(query, what the error is at, a part of the message, a part of the hint)`.
    @Test(arguments: [
        ("sender like bob", "like", "is SQL's pattern match", "from:bob"),
        (#"message like "%refund%""#, "like", "is SQL's pattern match", #"message ctn "refund""#),
        ("text ILIKE cash", "ILIKE", "is SQL's pattern match", #"message ctn "cash""#),
        ("dialog_name not like x%", "not like", "is SQL's pattern match", #"not dialog_name ctn "x""#),
        ("message ~ refund", "~", "regular-expression match", "message ctn"),
        ("message =~ ^ref", "=~", "regular-expression match", "message ctn"),
        ("text !~ spam", "!~", "regular-expression match", "message ctn"),
        ("sender_id ~ 5", "~", "regular-expression match", "compare sender_id with"),
        ("text matches refund", "matches", "regular-expression match", "message ctn"),
        ("~refund", "~", "regular-expression match", "words"),
        ("edited is true", "is", "compares in SQL", "edited = VALUE"),
        ("limit:10", "limit", "is not a field", "--limit"),
        ("refund limit 10", "limit 10", "is not part of a query", "--limit"),
        ("refund top:5", "top", "is not a field", "--limit"),
        ("refund order by date", "order by", "is not part of a query", "--sort"),
        ("sort:rank refund", "sort", "is not a field", "--sort"),
        ("offset:100", "offset", "is not a field", "--offset"),
        ("tz:Europe/Berlin x", "tz", "is not a field", "--tz"),
        ("dialog_type between 1 and 2", "between", "works on dates and numbers", "dialog_type in"),
        ("date between 2024-01-01", "between", "needs `and` between", "date between"),
        ("channel:general", "channel", "unknown field", "did you mean `in`?"),
        ("since:2024-01-01", "since", "unknown field", "did you mean `after`?"),
        ("author:bob", "author", "unknown field", "did you mean `from`?"),
        ("re:refund", "re", "unknown field", "put it in quotes"),
        ("befor:2024-01-01", "befor", "unknown field", "did you mean `before`?"),
        ("hass:link", "hass", "unknown field", "did you mean `has`?"),
        ("has:pdf", "pdf", "is not something `has:` knows", "has:link"),
        ("is:unread", "unread", "is not a state `is:` knows", "is:public"),
        ("before:yesterdayish", "yesterdayish", "is not a date", "YYYY-MM-DD"),
        ("during:2024-13", "2024-13", "is not a date", "YYYY-MM-DD"),
        ("before > 2024-01-01", ">", "is not allowed on `before`", "before:2024-03-01"),
        ("refund before 2024-01-01", "before 2024-01-01", "would search for two words", "before:2024-01-01"),
        ("on 2024-03-01", "on 2024-03-01", "would search for two words", "on:2024-03-01"),
        ("until 2024-03", "until 2024-03", "would search for two words", "before:2024-03"),
        ("has link", "has link", "would search for two words", "has:link"),
        ("is edited refund", "is edited", "would search for two words", "is:edited"),
        ("++", "++", "has nothing a word search can find", #"message ctn "++""#),
        (#"refund "...""#, #""...""#, "has nothing a word search can find", "message ctn"),
        ("refund -", "-", "has nothing a word search can find", "message ctn"),
    ])
    func mistakesAreErrorsThatShowOurWay(_ source: String, _ at: String, _ message: String, _ hint: String) {
        guard let error = failure(source) else { return }
        let characters = Array(source)
        let marked = String(characters[error.position..<min(characters.count, error.position + error.length)])
        #expect(marked == at, "\(source): marked `\(marked)` — \(error.message)")
        #expect(error.message.contains(message), "\(source): \(error.message)")
        #expect(error.hint?.contains(hint) == true, "\(source): \(error.hint ?? "no hint")")
    }

    /// `(query, the part the error marks)`: terms of one `and` that no message can satisfy together.
    @Test(arguments: [
        ("after:2025-01-01 before:2024-01-01", "before:2024-01-01"),
        ("before:2024-01-01 refund after:2025-01-01", "after:2025-01-01"),
        ("on:2024-03-01 on:2024-03-02", "on:2024-03-02"),
        ("during:2024-03 date < 2024-02-15", "date < 2024-02-15"),
        ("date > 2024-03-01 date <= 2024-03-01", "date <= 2024-03-01"),
        ("date between 2024-03-02 and 2024-03-01", "date between 2024-03-02 and 2024-03-01"),
        ("updated_at > 7d updated_at < 8d", "updated_at < 8d"),
        ("from:3 from:5", "from:5"),
        ("sender_id in (1, 2) sender_id = 3", "sender_id = 3"),
        ("is:private is:group", "is:group"),
        ("dialog_type:public is:private", "is:private"),
        ("is:edited edited = false", "edited = false"),
        ("has:link -has:link", "-has:link"),
        ("refund -refund", "-refund"),
        ("has:image -has:image", "-has:image"),
    ])
    func contradictionsAreErrors(_ source: String, _ at: String) {
        guard let error = failure(source) else { return }
        let characters = Array(source)
        let marked = String(characters[error.position..<min(characters.count, error.position + error.length)])
        #expect(marked == at || "-" + marked == at, "\(source): marked `\(marked)` — \(error.message)")
        #expect(
            error.message.contains("cannot both hold") || error.message.contains("can match nothing"),
            "\(source): \(error.message)")
    }

    @Test(arguments: [
        "after:2024-01-01 before:2025-01-01", "on:2024-03-01 or on:2024-03-02", "from:3 or from:5",
        "is:private or is:group", "refund or -refund", "date >= 2024-03-01 date <= 2024-03-01", "from:3 from:3",
        "(after:2025-01-01) or before:2024-01-01",
    ])
    func consistentQueriesParse(_ source: String) {
        #expect(throws: Never.self) { try parser.parse(source) }
    }

    @Test(arguments: [
        ("from user42", QueryField.senderID, "user42"), ("refund to bob", .recipientID, "bob"),
        ("in general", .dialog, "general"), ("sender alice", .senderID, "alice"), ("i believe in you", .dialog, "you"),
    ])
    func filterWordsWithoutColonAreRecordedForTheArchive(_ source: String, _ field: QueryField, _ value: String) throws
    {
        let query = try parser.parse(source)
        #expect(query.ambiguities.map(\.field) == [field])
        #expect(query.ambiguities.first?.value == value)
        let error = try #require(query.ambiguities.first).error(naming: "user 42")
        #expect(error.hint?.contains(":" + value) == true)
    }

    @Test(arguments: [
        ("refund from:alice", "word \"refund\" AND sender is \"alice\""),
        ("before:2024-03-01", "sent before 2024-03-01 00:00 UTC"),
        ("after:2024-03-01", "sent at or after 2024-03-02 00:00 UTC"),
        ("during:2024-03", "sent from 2024-03-01 00:00 UTC until 2024-04-01 00:00 UTC"),
        (
            "refu* -\"gift card\" or has:link",
            "(a word starting with \"refu\" AND NOT phrase \"gift card\") OR has a link"
        ),
        ("is:private message ctn \"bit.ly\"", "dialog type is private AND text contains \"bit.ly\""),
        ("not is:edited", "NOT edited"),
    ])
    func summaries(_ source: String, _ expected: String) throws {
        #expect(QuerySummary.describe(try parser.parse(source)) == expected)
    }

    @Test func summariesInAZone() throws {
        let zone = try #require(TimeZone(identifier: "Asia/Tokyo"))
        let query = try QueryParser(now: testNow, zone: zone).parse("on:2024-03-01")
        #expect(
            QuerySummary.describe(query, zone: zone)
                == "sent from 2024-03-01 00:00 +09:00 until 2024-03-02 00:00 +09:00")
    }
}
