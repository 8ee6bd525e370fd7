import Foundation
import QuickBlox

/// Reads the date values of the language as half-open periods of unix seconds `[start, end)`.
///
/// Plain arithmetic on the proleptic Gregorian calendar rather than `Calendar`: days, months and years are
/// read in the query's time zone (UTC unless `--tz` names another), and the result must not depend on the
/// machine's zone or locale. In another zone a calendar period starts and ends at that zone's local
/// midnights, daylight saving time included (a day may last 23 or 25 hours); values with their own offset
/// (`Z`, `+02:00`), unix seconds and relative values (`7d`) are the same in every zone. Every computation
/// is overflow-checked, so hostile input (a 19-digit number, `999999999w`) is "not a date", never a trap.
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

    /// The period `text` names, relative ones measured back from `now`, calendar ones in `zone`; `nil` when
    /// it is not a date.
    public static func period(_ text: String, now: Int, zone: TimeZone = utc) -> (start: Int, end: Int)? {
        let lower = text.lowercased()
        switch lower {
        case "today", "yesterday":
            guard let local = localSeconds(now, zone: zone) else { return nil }
            let remainder = ((local % day) + day) % day
            let (today, overflow) = local.subtractingReportingOverflow(remainder + (lower == "today" ? 0 : day))
            let (tomorrow, late) = today.addingReportingOverflow(day)
            guard !overflow, !late, let start = utcSeconds(today, zone: zone),
                let end = utcSeconds(tomorrow, zone: zone)
            else { return nil }
            return (start, end)
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
        return calendarPeriod(Substring(lower), zone: zone)
    }

    /// An instant as a person reads it in `zone`: `2024-03-01 00:00 UTC`, `2024-03-01 10:00:07 +01:00`.
    public static func describe(_ seconds: Int, zone: TimeZone) -> String {
        let local = localSeconds(seconds, zone: zone) ?? seconds
        let (year, month, dayOfMonth, hour, minute, second) = ISO8601.components(local)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        var text = "\(year)-\(two(month))-\(two(dayOfMonth)) \(two(hour)):\(two(minute))"
        if second != 0 { text += ":" + two(second) }
        let offset = local - seconds
        if offset == 0, zone == utc || ["UTC", "GMT"].contains(zone.identifier) { return text + " UTC" }
        let sign = offset < 0 ? "-" : "+"
        return text + " \(sign)\(two(abs(offset) / 3_600)):\(two(abs(offset) / 60 % 60))"
    }

    /// UTC, the default zone of every query.
    public static let utc = TimeZone(secondsFromGMT: 0)!

    /// Local wall-clock seconds (as if the zone were UTC) of the instant `seconds`.
    static func localSeconds(_ seconds: Int, zone: TimeZone) -> Int? {
        guard zone != utc else { return seconds }
        guard seconds.magnitude < 1 << 50 else { return nil }
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds)))
        let (local, overflow) = seconds.addingReportingOverflow(offset)
        return overflow ? nil : local
    }

    /// The instant at which the zone's clocks show the wall-clock seconds `local` (in a gap that a change to
    /// summer time skips, the instant after it).
    static func utcSeconds(_ local: Int, zone: TimeZone) -> Int? {
        guard zone != utc else { return local }
        guard local.magnitude < 1 << 50 else { return nil }
        func offset(_ instant: Int) -> Int { zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant))) }
        let first = local - offset(local)
        let second = local - offset(first)
        return second + offset(second) == local ? second : max(first, second)
    }

    /// Whether `text` is a bare number too small to be unix seconds (and not a four-digit year).
    static func isSmallNumber(_ text: String) -> Bool {
        (1...8).contains(text.count) && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, and `YYYY-MM-DDTHH:MM[:SS[.fff]][Z|±HH:MM|±HHMM|±HH]`, in `zone`
    /// unless the value has its own offset.
    private static func calendarPeriod(_ text: Substring, zone: TimeZone) -> (start: Int, end: Int)? {
        guard let local = calendarPeriod(text) else { return nil }
        guard !local.ownOffset, zone != utc else { return (local.start, local.end) }
        guard let start = utcSeconds(local.start, zone: zone), let end = utcSeconds(local.end, zone: zone) else {
            return nil
        }
        return (start, end)
    }

    /// The period in wall-clock seconds, and whether the value named its own offset.
    private static func calendarPeriod(_ text: Substring) -> (start: Int, end: Int, ownOffset: Bool)? {
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
            case 1: return (start, daysSinceEpoch(year: year + 1, month: 1, day: 1) * day, false)
            case 2:
                let next = month == 12 ? (year + 1, 1) : (year, month + 1)
                return (start, daysSinceEpoch(year: next.0, month: next.1, day: 1) * day, false)
            default: return (start, start + day, false)
            }
        }
        guard pieces.count == 3, let (time, ownOffset) = secondsOfDay(parts[1]) else { return nil }
        return (start + time, start + time + 1, ownOffset)
    }

    /// Seconds from midnight UTC of `HH:MM[:SS[.fff]]` with an optional `Z` or `±HH[:MM]` offset, and whether
    /// the offset was given.
    private static func secondsOfDay(_ text: Substring) -> (Int, Bool)? {
        var clock = text
        var offset = 0
        var ownOffset = false
        if clock.hasSuffix("z") {
            clock = clock.dropLast()
            ownOffset = true
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            guard let zone = zoneOffset(clock[clock.index(after: sign)...]) else { return nil }
            offset = clock[sign] == "+" ? zone : -zone
            clock = clock[..<sign]
            ownOffset = true
        }
        if let dot = clock.firstIndex(of: ".") {
            guard digits(clock[clock.index(after: dot)...], count: 1...9) != nil else { return nil }
            clock = clock[..<dot]
        }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false).map { digits($0, count: 2...2) }
        guard fields.count == 2 || fields.count == 3, let hour = fields[0], let minute = fields[1] else { return nil }
        let second = fields.count == 3 ? fields[2] : 0
        guard let second, hour < 24, minute < 60, second < 60 else { return nil }
        return (hour * 3_600 + minute * 60 + second - offset, ownOffset)
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
