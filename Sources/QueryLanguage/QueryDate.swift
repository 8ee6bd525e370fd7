/// Reads the date values of the language as half-open periods of unix seconds `[start, end)`.
///
/// Plain arithmetic on the proleptic Gregorian calendar in UTC rather than `Calendar`: the
/// language's dates are all UTC unless they carry an offset, and the result must not depend on the
/// machine's time zone or locale. Every computation is overflow-checked, so hostile input (a
/// 19-digit number, `999999999w`) is "not a date", never a trap.
public enum QueryDate {
    /// What a date may look like, for the hint of a value that is not one.
    public static let hint =
        "use YYYY-MM-DD, YYYY-MM, YYYY, 2024-03-01T10:00:00Z, unix seconds, 7d, 24h, 30m, 2w, today or yesterday"
    /// The hint for a bare number too small to be unix seconds.
    static let smallNumberHint =
        "numbers are unix seconds from 100000000 (1973) on; for a day use YYYY-MM-DD, for a year YYYY"
    /// The smallest bare number read as unix seconds.
    static let firstUnixSecond = 100_000_000

    private static let day = 86_400
    private static let units: [Character: Int] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// The period `text` names, relative ones measured back from `now`; `nil` when it is not a date.
    public static func period(_ text: String, now: Int) -> (start: Int, end: Int)? {
        let lower = text.lowercased()
        switch lower {
        case "today", "yesterday":
            let remainder = ((now % day) + day) % day
            let (today, overflow) = now.subtractingReportingOverflow(remainder + (lower == "today" ? 0 : day))
            return overflow ? nil : span(today, day)
        case "now": return span(now, 1)
        default: break
        }
        if let unit = lower.last.flatMap({ units[$0] }), let amount = digits(lower.dropLast(), count: 1...9) {
            let (start, overflow) = now.subtractingReportingOverflow(amount * unit)
            return overflow ? nil : span(start, 1)
        }
        if let seconds = digits(Substring(lower), count: 9...12), seconds >= firstUnixSecond {
            return span(seconds, 1)
        }
        return calendarPeriod(Substring(lower))
    }

    /// Whether `text` is a bare number too small to be unix seconds (and not a four-digit year).
    static func isSmallNumber(_ text: String) -> Bool {
        (1...8).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, and `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`.
    private static func calendarPeriod(_ text: Substring) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "t", maxSplits: 1, omittingEmptySubsequences: false)
        let pieces = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard (1...3).contains(pieces.count), let year = digits(pieces[0], count: 4...4) else { return nil }
        let month = pieces.count > 1 ? digits(pieces[1], count: 2...2) : 1
        let dayOfMonth = pieces.count > 2 ? digits(pieces[2], count: 2...2) : 1
        guard let month, let dayOfMonth, (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(dayOfMonth)
        else { return nil }
        let start = daysSinceEpoch(year: year, month: month, day: dayOfMonth) * day
        guard parts.count == 2 else {
            switch pieces.count {
            case 1: return (start, daysSinceEpoch(year: year + 1, month: 1, day: 1) * day)
            case 2:
                let next = month == 12 ? (year + 1, 1) : (year, month + 1)
                return (start, daysSinceEpoch(year: next.0, month: next.1, day: 1) * day)
            default: return span(start, day)
            }
        }
        guard pieces.count == 3, let time = secondsOfDay(parts[1]) else { return nil }
        return span(start + time, 1)
    }

    /// Seconds from midnight UTC of `HH:MM[:SS[.fff]]` with an optional `Z` or `±HH[:MM]` offset.
    private static func secondsOfDay(_ text: Substring) -> Int? {
        var clock = text
        var offset = 0
        if clock.hasSuffix("z") {
            clock = clock.dropLast()
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let zone = zoneOffset(clock[clock.index(after: sign)...]) else { return nil }
            offset = clock[sign] == "+" ? zone : -zone
            clock = clock[..<sign]
        }
        if let dot = clock.firstIndex(of: ".") {
            guard digits(clock[clock.index(after: dot)...], count: 1...9) != nil else { return nil }
            clock = clock[..<dot]
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false).map { digits($0, count: 2...2) }
        guard fields.count == 2 || fields.count == 3, let hour = fields[0], let minute = fields[1] else { return nil }
        let second = fields.count == 3 ? fields[2] : 0
        guard let second, hour < 24, minute < 60, second < 60 else { return nil }
        return hour * 3_600 + minute * 60 + second - offset
    }

    /// Seconds east of UTC of `HH:MM`, `HHMM` or `HH` (at most 14 hours).
    private static func zoneOffset(_ text: Substring) -> Int? {
        let compact = text.filter { $0 != ":" }
        guard compact.count == 2 || compact.count == 4, text.count - compact.count <= 1,
            let hours = digits(Substring(compact.prefix(2)), count: 2...2)
        else { return nil }
        let minutes = compact.count == 4 ? digits(Substring(compact.suffix(2)), count: 2...2) : 0
        guard let minutes, hours <= 14, minutes < 60 else { return nil }
        return hours * 3_600 + minutes * 60
    }

    /// The value of `text` when it is `count` ASCII digits, `nil` otherwise.
    private static func digits(_ text: Substring, count: ClosedRange<Int>) -> Int? {
        guard count.contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// `[start, start + length)`, `nil` when the end does not fit in an `Int`.
    private static func span(_ start: Int, _ length: Int) -> (start: Int, end: Int)? {
        let (end, overflow) = start.addingReportingOverflow(length)
        return overflow ? nil : (start, end)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
