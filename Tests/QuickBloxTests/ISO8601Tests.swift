import QuickBlox
import Testing

@Suite("ISO8601")
struct ISO8601Tests {
    @Test(arguments: [
        ("2019-09-08T17:24:11Z", 1_567_963_451),
        ("2019-09-08T19:36:54Z", 1_567_971_414),
        ("2019-09-01T14:55:56Z", 1_567_349_756),
        ("1970-01-01T00:00:00Z", 0),
        ("1969-12-31T23:59:59Z", -1),
        ("2000-02-29T12:00:00Z", 951_825_600),
        ("2100-03-01T00:00:00Z", 4_107_542_400),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
    ])
    func parsesZulu(_ text: String, _ seconds: Int) {
        #expect(ISO8601.parse(text) == seconds)
    }

    @Test(arguments: [
        "2019-08-26T20:09:22+00:00",
        "2019-08-26T20:09:22+0000",
        "2019-08-26T20:09:22Z",
        "2019-08-26T20:09:22z",
        "2019-08-26T20:09:22",
        "2019-08-26T20:09:22.000Z",
        "2019-08-26T20:09:22.123Z",
        "2019-08-26T20:09:22.999999+00:00",
        "2019-08-26T22:09:22+02:00",
        "2019-08-26T22:09:22+0200",
        "2019-08-26T15:09:22-05:00",
        "2019-08-26T15:39:22-0430",
        "2019-08-26 20:09:22 UTC",
        "2019-08-26 20:09:22 +0000",
        "2019-08-26 20:09:22UTC",
    ])
    func parsesEveryVariantOfTheSameInstant(_ text: String) {
        // The GET /session.json example: 2019-08-26T20:09:22+00:00.
        #expect(ISO8601.parse(text) == 1_566_850_162)
    }

    @Test func fractionalSecondsAreTruncated() {
        #expect(ISO8601.parse("2019-09-08T17:24:11.999Z") == 1_567_963_451)
        #expect(ISO8601.parse("2019-09-08T17:24:11.5+00:00") == 1_567_963_451)
    }

    @Test func tokenExpirationHeaderForms() {
        // "2016-05-02 19:52:00 UTC" (RB fixture) and "2018-01-12 14:01:32 +0000" (iOS #934).
        #expect(ISO8601.parse("2016-05-02 19:52:00 UTC") == 1_462_218_720)
        #expect(ISO8601.parse("2018-01-12 14:01:32 +0000") == 1_515_765_692)
    }

    @Test(arguments: [
        "",
        "garbage",
        "2019-09-08",
        "2019-09-08T17:24",
        "2019-09-08T17:24:1Z",
        "2019/09/08T17:24:11Z",
        "2019-09-08X17:24:11Z",
        "2019-09-08T17-24-11Z",
        "19-09-08T17:24:11Z",
        "2019-13-08T17:24:11Z",
        "2019-00-08T17:24:11Z",
        "2019-09-00T17:24:11Z",
        "2019-09-32T17:24:11Z",
        "2019-09-08T24:00:00Z",
        "2019-09-08T17:60:11Z",
        "2019-09-08T17:24:61Z",
        "2019-09-08T17:24:11X",
        "2019-09-08T17:24:11Zjunk",
        "2019-09-08T17:24:11 PST",
        "2019-09-08T17:24:11+5",
        "2019-09-08T17:24:11+05:00:00",
        "2019-09-08T17:24:11+ab:cd",
        "2019-09-08T17:24:11.12.3Z",
        "abcd-ef-ghTij:kl:mnZ",
        "1567963451",
    ])
    func rejectsGarbage(_ text: String) {
        #expect(ISO8601.parse(text) == nil)
    }

    @Test(arguments: [
        (1_567_963_451, "2019-09-08T17:24:11Z"),
        (0, "1970-01-01T00:00:00Z"),
        (-1, "1969-12-31T23:59:59Z"),
        (-86_400, "1969-12-31T00:00:00Z"),
        (951_825_600, "2000-02-29T12:00:00Z"),
        (4_107_542_400, "2100-03-01T00:00:00Z"),
        (253_402_300_799, "9999-12-31T23:59:59Z"),
        (1_326_966_962, "2012-01-19T09:56:02Z"),
    ])
    func formats(_ seconds: Int, _ text: String) {
        #expect(ISO8601.format(seconds) == text)
    }

    @Test func formatsTheTokenExpirationHeader() {
        #expect(ISO8601.formatHeader(1_462_218_720) == "2016-05-02 19:52:00 UTC")
        #expect(ISO8601.formatHeader(0) == "1970-01-01 00:00:00 UTC")
        #expect(ISO8601.formatHeader(-1) == "1969-12-31 23:59:59 UTC")
    }

    @Test(arguments: [
        0, 1, -1, 59, 86_399, 86_400, 951_782_400, 1_567_963_451, 1_700_000_000, 4_102_444_799, -2_208_988_800,
    ])
    func formatAndParseRoundTrip(_ seconds: Int) {
        #expect(ISO8601.parse(ISO8601.format(seconds)) == seconds)
        #expect(ISO8601.parse(ISO8601.formatHeader(seconds)) == seconds)
    }

    @Test func roundTripEveryDayOfFourHundredYears() {
        // One full Gregorian cycle (1900-2300), at a time of day that exercises every component.
        var seconds = -2_208_988_800 + 45_296
        var failures = 0
        for _ in 0..<(146_097) {
            if ISO8601.parse(ISO8601.format(seconds)) != seconds { failures += 1 }
            seconds += 86_400
        }
        #expect(failures == 0)
    }

    @Test func parseThenFormatNormalisesToZulu() throws {
        let seconds = try #require(ISO8601.parse("2019-08-26T20:09:22+00:00"))
        #expect(ISO8601.format(seconds) == "2019-08-26T20:09:22Z")
    }
}
