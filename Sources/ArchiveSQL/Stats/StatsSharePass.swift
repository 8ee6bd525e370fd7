import Archive

/// The statements of a refresh that reads each stale dialog's messages once and tallies every roll-up's share
/// from them (``DialogShareTally``) instead of running one grouping statement per roll-up.
///
/// A backend that runs statements in process, where a statement per dialog and a row bound per insert cost
/// little, passes a writer built on these to ``StatsRollup/refresh(_:writingShares:)`` (SQLite). PostgreSQL keeps
/// the set statements: a row at a time would cost a round trip each, and its grouping hashes in memory.
public struct StatsSharePass: Sendable {
    /// The stale dialogs, each once, in order: `dialog_id`, whether it is private (reply delays count), the time
    /// of its last reconcile count (`NULL` when never counted).
    public let staleDialogs: String
    /// One dialog's messages in the order of the replies' window (date sent, then id), as
    /// ``DialogShareTally/Message`` reads them: hour, day, date sent, sender, deleted, edits, attachment types,
    /// counted at the reconcile count. Binds the reconcile count's time twice, then the dialog's id.
    public let messages: String
    /// The inserts of one row into each per-dialog table, in the order of ``DialogShareTally/rows()``.
    public let inserts: [String]

    init(shares: StatsShares) {
        let dialect = shares.dialect
        let sql = StatsSQL(dialect: dialect)
        let placeholders = { (count: Int) in (1...count).map(dialect.placeholder).joined(separator: ", ") }
        staleDialogs = """
            SELECT s.dialog_id, COALESCE(d.type = 3, FALSE), c.server_counted_at
            FROM (SELECT DISTINCT dialog_id FROM stats_stale) s
            LEFT JOIN dialogs d ON d.id = s.dialog_id LEFT JOIN crawl_state c ON c.dialog_id = s.dialog_id
            ORDER BY s.dialog_id
            """
        let (countedAt, again) = (dialect.placeholder(1), dialect.placeholder(2))
        let counted = "m.first_seen_at <= \(countedAt) AND (m.deleted_at IS NULL OR m.deleted_at > \(again))"
        messages = """
            SELECT \(sql.floorDivision("m.date_sent", 3600)), \(sql.floorDivision("m.date_sent", 86_400)), m.date_sent,
                m.sender_id, m.deleted_at IS NOT NULL, m.edited, COALESCE(\(sql.attachmentTypes), ''),
                COALESCE(\(counted), FALSE)
            FROM messages m WHERE m.dialog_id = \(dialect.placeholder(3)) ORDER BY m.date_sent, m.id
            """
        let tables = shares.summed.map { ($0.perDialog, $0.columns, 1 + $0.keys.count + $0.counts.count) }
        inserts = (tables + [("stats_dialogs", StatsShares.dialogColumns, 4)]).map { table, columns, count in
            "INSERT INTO \(table) (\(columns)) VALUES (\(placeholders(count)))"
        }
    }
}
