/// SQL expressions shared by the statistics statements: calendar arithmetic on unix seconds, in UTC.
///
/// Only this file's own text reaches SQL; the operands are column names chosen by the callers.
enum StatsSQL {
    /// `expression` divided by `divisor`, rounded down (SQLite's `/` rounds toward zero, wrong for
    /// times before 1970).
    static func floorDivision(_ expression: String, _ divisor: Int) -> String {
        "((\(expression)) - (((\(expression)) % \(divisor)) + \(divisor)) % \(divisor)) / \(divisor)"
    }

    /// The ISO weekday of a day number (days since 1970-01-01, a Thursday): 0 Monday … 6 Sunday.
    static func weekday(_ day: String) -> String {
        "((((\(day)) + 3) % 7) + 7) % 7"
    }

    /// The unix time at which the bucket holding day number `day` starts.
    static func bucketStart(_ bucket: StatisticsRequest.Bucket, day: String) -> String {
        switch bucket {
        case .day: "(\(day)) * 86400"
        case .week: "((\(day)) - \(weekday(day))) * 86400"
        case .month: "CAST(strftime('%s', (\(day)) * 86400, 'unixepoch', 'start of month') AS INTEGER)"
        }
    }
}
