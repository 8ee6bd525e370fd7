import QuickBlox
import Testing

@testable import QueryLanguage

@Suite("Query dates")
struct QueryDateTests {
    static let cases: [(text: String, start: Int, end: Int)] = [
        ("2024", 1_704_067_200, 1_735_689_600),
        ("2024-02", 1_706_745_600, 1_706_745_600 + 29 * 86_400),  // a leap February
        ("2023-02", 1_675_209_600, 1_675_209_600 + 28 * 86_400),
        ("2024-12", 1_733_011_200, 1_735_689_600),
        ("2024-03-01", march2024, march2024 + day),
        ("2024-02-29", march2024 - day, march2024),
        ("2000-02-29", 951_782_400, 951_782_400 + 86_400),
        ("1970-01-01", 0, 86_400),
        ("1969-12-31", -86_400, 0),
        ("2024-03-01T10:00:00Z", march2024 + 36_000, march2024 + 36_001),
        ("2024-03-01t10:00:00z", march2024 + 36_000, march2024 + 36_001),
        ("2024-03-01T10:00", march2024 + 36_000, march2024 + 36_001),
        ("2024-03-01T10:00:07.250Z", march2024 + 36_007, march2024 + 36_008),
        ("2024-03-01T10:00:00+02:00", march2024 + 28_800, march2024 + 28_801),
        ("2024-03-01T10:00+0200", march2024 + 28_800, march2024 + 28_801),
        ("2024-03-01T01:00+02", march2024 - 3_600, march2024 - 3_599),
        ("2024-03-01T10:00:00-05:30", march2024 + 55_800, march2024 + 55_801),
        ("1999-12-31T23:59:59Z", 946_684_799, 946_684_800),
        ("1709251200", march2024, march2024 + 1),
        ("100000000", 100_000_000, 100_000_001),
        ("today", 1_710_028_800, 1_710_028_800 + day),
        ("TODAY", 1_710_028_800, 1_710_028_800 + day),
        ("yesterday", 1_710_028_800 - day, 1_710_028_800),
        ("now", testNow, testNow + 1),
        ("7d", testNow - 7 * day, testNow - 7 * day + 1),
        ("24h", testNow - day, testNow - day + 1),
        ("30m", testNow - 1_800, testNow - 1_799),
        ("2w", testNow - 14 * day, testNow - 14 * day + 1),
        ("0d", testNow, testNow + 1),
    ]

    @Test(arguments: cases)
    func periods(_ text: String, _ start: Int, _ end: Int) throws {
        #expect(try parsed("date = \(text)") == predicate(.dateSent, .equal, [.period(start: start, end: end)]))
    }

    @Test func comparisonsKeepThePeriod() throws {
        let sevenDays = QueryValue.period(start: testNow - 7 * day, end: testNow - 7 * day + 1)
        #expect(try parsed("date > 7d") == predicate(.dateSent, .greaterThan, [sevenDays]))
        #expect(try parsed("updated_at <= 7d") == predicate(.updatedAt, .lessThanOrEqual, [sevenDays]))
        let day1 = QueryValue.period(start: march2024, end: march2024 + day)
        #expect(try parsed("date_sent < 2024-03-01") == predicate(.dateSent, .lessThan, [day1]))
        #expect(try parsed("date != \"2024-03-01\"") == predicate(.dateSent, .notEqual, [day1]))
    }

    @Test func inTakesOnePeriodWithOrWithoutParentheses() throws {
        let march = QueryValue.period(start: march2024, end: march2024 + 31 * day)
        #expect(try parsed("date_sent in 2024-03") == predicate(.dateSent, .in, [march]))
        #expect(try parsed("date in (2024-03)") == predicate(.dateSent, .in, [march]))
        #expect(try parsed("date in 2024-03 refund") == .and([predicate(.dateSent, .in, [march]), word("refund")]))
    }

    /// A year is a date only where a date is expected.
    @Test func aYearOutsideADateFieldIsNoPeriod() throws {
        #expect(try parsed("2024") == word("2024"))
        #expect(try parsed("custom.year = 2024") == predicate(.custom("year"), .equal, [.int(2024)]))
    }

    @Test(arguments: [
        "2024-13-01", "2023-02-29", "2024-04-31", "2024-3-1", "2024-03-1", "2024-03-01T25:00", "2024-03-01T10:60",
        "2024-03-01T10", "2024-03-01T10:00+15:00", "2024-03-01T10:00:00.Z", "T10:00", "tomorrow", "7y", "d",
        "-", "1e9", "99999999999999999999", "9999999999d", "1000000000000",
    ])
    func notDates(_ text: String) {
        guard let error = failure("date = \(text)") else { return }
        #expect(error.message == "`\(text)` is not a date")
        #expect(error.position == 7 && error.length == text.count)
        #expect(error.hint == QueryDate.hint)
    }

    @Test(arguments: ["0", "12", "12345", "99999999"])
    func smallNumbersSuggestADate(_ text: String) {
        let error = failure("date_sent >= \(text)")
        #expect(error?.message == "`\(text)` is not a date")
        #expect(error?.position == 13)
        #expect(error?.hint == QueryDate.smallNumberHint)
    }

    @Test func extremeNowNeverTraps() throws {
        for now in [Int.max, Int.min, 0, -1] {
            for text in ["today", "yesterday", "now", "7d", "999999999w", "2024-03"] {
                _ = try? QueryParser(now: now).parse("date > \(text)")
            }
        }
        #expect(
            try shape(QueryParser(now: -1).parse("date = today").root)
                == predicate(.dateSent, .equal, [.period(start: -day, end: 0)]))
    }
}
