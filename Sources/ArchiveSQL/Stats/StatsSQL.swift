import Archive

/// Calendar arithmetic on unix seconds, in UTC, shared by the statistics statements.
///
/// Only this file's own text and the dialect's reach SQL; the operands are column names chosen by the callers.
struct StatsSQL {
    let dialect: any SQLDialect

    /// `expression` divided by `divisor`, rounded down.
    func floorDivision(_ expression: String, _ divisor: Int) -> String {
        dialect.floorDivision(expression, divisor)
    }

    /// The ISO weekday of a day number (days since 1970-01-01, a Thursday): 0 Monday … 6 Sunday.
    func weekday(_ day: String) -> String {
        "((((\(day)) + 3) % 7) + 7) % 7"
    }

    /// The unix time at which the bucket holding day number `day` starts.
    func bucketStart(_ bucket: StatisticsRequest.Bucket, day: String) -> String {
        switch bucket {
        case .day: "(\(day)) * 86400"
        case .week: "((\(day)) - \(weekday(day))) * 86400"
        case .month: dialect.monthStart(day: day)
        }
    }

    /// The JSON list of a message's attachment types (`m.attachments`), or NULL when it has none: one
    /// definition for the report's scan and the statistics roll-ups, whose figures must agree.
    var attachmentTypes: String {
        let kinds = dialect.jsonArrayAggregate(dialect.jsonMember(dialect.jsonElement("e"), path: "$.type"))
        return """
            CASE WHEN m.attachments = '[]' THEN NULL ELSE (
                SELECT \(kinds) FROM \(dialect.jsonElements(of: "m.attachments", as: "e"))
            ) END
            """
    }
}
