import QuickBlox

/// Calendar arithmetic on unix seconds in UTC: labels and the successor of a period's start.
///
/// Written out rather than through `Calendar` so that results never depend on the machine's time zone
/// or locale; the day arithmetic is `ISO8601`'s (Howard Hinnant's public-domain civil-date algorithm).
enum UTCCalendar {
    static let day = 86_400

    /// Days since 1970-01-01 of a civil date.
    static func days(year: Int, month: Int, day: Int) -> Int {
        ISO8601.daysFromCivil(year: year, month: month, day: day)
    }

    /// The civil date (year, month, day) of a unix time.
    static func date(_ seconds: Int) -> (year: Int, month: Int, day: Int) {
        let (year, month, day) = ISO8601.civilFromDays(floorDivide(seconds, Self.day))
        return (year, month, day)
    }

    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    /// `2024-03-01`.
    static func dateLabel(_ seconds: Int) -> String {
        let (y, m, d) = date(seconds)
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// The ISO 8601 week of a day: `2024-W09` (the week-year is the year of the week's Thursday).
    static func isoWeekLabel(_ seconds: Int) -> String {
        let dayNumber = floorDivide(seconds, day)
        let weekday = ((dayNumber + 3) % 7 + 7) % 7  // 0 Monday
        let thursday = dayNumber - weekday + 3
        let year = date(thursday * day).year
        let week = (thursday - days(year: year, month: 1, day: 1)) / 7 + 1
        return "\(pad(year, 4))-W\(pad(week, 2))"
    }

    /// The period's label: `2024-03-01`, `2024-W09` or `2024-03`.
    static func label(_ start: Int, _ period: StatsPeriod) -> String {
        switch period {
        case .day: return dateLabel(start)
        case .week: return isoWeekLabel(start)
        case .month:
            let (y, m, _) = date(start)
            return "\(pad(y, 4))-\(pad(m, 2))"
        }
    }

    /// The start of the period after the one starting at `start`.
    static func next(_ start: Int, _ period: StatsPeriod) -> Int {
        switch period {
        case .day: return start + day
        case .week: return start + 7 * day
        case .month:
            let (y, m, _) = date(start)
            return days(year: m == 12 ? y + 1 : y, month: m == 12 ? 1 : m + 1, day: 1) * day
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
