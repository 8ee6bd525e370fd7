import Foundation

/// Reads the date values of the language as half-open periods of unix seconds.
enum QueryDate {
    static let hint = "use YYYY-MM-DD, YYYY-MM, YYYY, 2024-03-01T10:00:00Z, unix seconds, 7d, 24h, today or yesterday"

    /// The period `text` names, relative ones measured back from `now`; `nil` when it is not a date.
    static func period(_ text: String, now: Int) -> (start: Int, end: Int)? {
        let lower = text.lowercased()
        let day = 86_400
        switch lower {
        case "today": return (now - mod(now, day), now - mod(now, day) + day)
        case "yesterday": return (now - mod(now, day) - day, now - mod(now, day))
        case "now": return (now, now + 1)
        default: break
        }
        if let unit = lower.last, let amount = Int(lower.dropLast()), amount >= 0, lower.count > 1 {
            let seconds: Int? = ["m": 60, "h": 3600, "d": day, "w": 7 * day][unit]
            if let seconds { return (now - amount * seconds, now - amount * seconds + 1) }
        }
        if let seconds = Int(lower), lower.count >= 9, seconds >= 100_000_000 { return (seconds, seconds + 1) }
        return calendarPeriod(text)
    }

    private static func mod(_ a: Int, _ b: Int) -> Int { ((a % b) + b) % b }

    /// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, and `YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]`.
    private static func calendarPeriod(_ text: String) -> (start: Int, end: Int)? {
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        let pieces = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        let date = pieces.compactMap { Int($0) }
        guard date.count == pieces.count, (1...3).contains(date.count), pieces[0].count == 4,
            pieces.allSatisfy({ $0.allSatisfy(\.isNumber) })
        else { return nil }
        let year = date[0]
        let month = date.count > 1 ? date[1] : 1
        let dayOfMonth = date.count > 2 ? date[2] : 1
        guard (1...12).contains(month), (1...31).contains(dayOfMonth),
            let start = seconds(year: year, month: month, day: dayOfMonth, hour: 0, minute: 0, second: 0)
        else { return nil }
        if parts.count == 1 {
            switch date.count {
            case 1: return (start, seconds(year: year + 1, month: 1, day: 1, hour: 0, minute: 0, second: 0) ?? start)
            case 2:
                let next = month == 12 ? (year + 1, 1) : (year, month + 1)
                return (start, seconds(year: next.0, month: next.1, day: 1, hour: 0, minute: 0, second: 0) ?? start)
            default: return (start, start + 86_400)
            }
        }
        guard date.count == 3, let time = timeOfDay(String(parts[1])) else { return nil }
        let instant = start + time
        return (instant, instant + 1)
    }

    /// Seconds from midnight UTC of `HH:MM[:SS]` with an optional `Z` or `±HH:MM` zone.
    private static func timeOfDay(_ text: String) -> Int? {
        var clock = Substring(text)
        var offset = 0
        if clock.hasSuffix("Z") || clock.hasSuffix("z") {
            clock = clock.dropLast()
        } else if let sign = clock.lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let zone = clock[clock.index(after: sign)...].split(separator: ":").map { Int($0) }
            guard zone.count == 2, let hours = zone[0], let minutes = zone[1], hours <= 14, minutes < 60 else {
                return nil
            }
            offset = (hours * 3600 + minutes * 60) * (clock[sign] == "+" ? 1 : -1)
            clock = clock[..<sign]
        }
        let pieces = clock.split(separator: ":", omittingEmptySubsequences: false)
        let fields = pieces.compactMap { Int($0) }
        guard fields.count == pieces.count, fields.count == 2 || fields.count == 3 else { return nil }
        let hour = fields[0]
        let minute = fields[1]
        let second = fields.count == 3 ? fields[2] : 0
        guard (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second) else { return nil }
        return hour * 3600 + minute * 60 + second - offset
    }

    /// Unix seconds of a UTC calendar time, `nil` for a day the month does not have (2023-02-29).
    private static func seconds(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let components = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard let date = calendar.date(from: components),
            calendar.component(.day, from: date) == day, calendar.component(.month, from: date) == month
        else { return nil }
        return Int(date.timeIntervalSince1970)
    }
}
