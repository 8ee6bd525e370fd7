import Testing

@testable import QueryLanguage

@Suite("Query dates")
struct QueryDateTests {
    static let march2024 = 1_709_251_200  // 2024-03-01T00:00:00Z
    static let day = 86_400

    @Test(arguments: [
        ("2024", 1_704_067_200, 1_735_689_600),
        ("2024-02", 1_706_745_600, 1_706_745_600 + 29 * 86_400),  // a leap February
        ("2023-02", 1_675_209_600, 1_675_209_600 + 28 * 86_400),
        ("2024-12", 1_733_011_200, 1_735_689_600),
        ("2024-03-01", march2024, march2024 + day),
        ("2024-02-29", march2024 - day, march2024),
        ("2024-03-01T10:00:00Z", march2024 + 36_000, march2024 + 36_001),
        ("2024-03-01T10:00", march2024 + 36_000, march2024 + 36_001),
        ("2024-03-01T10:00:00+02:00", march2024 + 28_800, march2024 + 28_801),
        ("2024-03-01T10:00:00-05:30", march2024 + 55_800, march2024 + 55_801),
        ("1709251200", march2024, march2024 + 1),
        ("today", 1_710_028_800, 1_710_028_800 + day),
        ("yesterday", 1_710_028_800 - day, 1_710_028_800),
        ("7d", testNow - 7 * day, testNow - 7 * day + 1),
        ("24h", testNow - day, testNow - day + 1),
        ("30m", testNow - 1800, testNow - 1799),
        ("2w", testNow - 14 * day, testNow - 14 * day + 1),
    ])
    func periods(_ text: String, _ start: Int, _ end: Int) throws {
        #expect(try parsed("date = \(text)") == predicate(.dateSent, .equal, [.period(start: start, end: end)]))
    }

    @Test func inTakesOnePeriodWithOrWithoutParentheses() throws {
        let march = QueryValue.period(start: Self.march2024, end: Self.march2024 + 31 * Self.day)
        #expect(try parsed("date_sent in 2024-03") == predicate(.dateSent, .in, [march]))
        #expect(try parsed("date in (2024-03)") == predicate(.dateSent, .in, [march]))
        #expect(
            try parsed("updated_at > 7d")
                == predicate(
                    .updatedAt, .greater, [.period(start: testNow - 7 * Self.day, end: testNow - 7 * Self.day + 1)]))
    }

    @Test(arguments: ["2024-13-01", "2023-02-29", "2024-3-1x", "12345", "tomorrow", "2024-03-01T25:00", "7y", "-"])
    func notDates(_ text: String) {
        #expect(throws: QueryError.self) { try parser.parse("date = \(text)") }
        do {
            _ = try parser.parse("date = \(text)")
        } catch {
            #expect(error.position == 7)
            #expect(error.hint == QueryDate.hint)
        }
    }
}
