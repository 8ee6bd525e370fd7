import Archive
import Foundation
import QuickBlox

extension SQLArchiveReading {
    /// The senders of most selected messages, with their archived login and full name.
    static func topSenders(_ connection: any SQLConnection, _ selection: StatsSelection, limit: Int) throws
        -> [ArchiveStatistics.SenderCount]
    {
        let counts: SQLFragment =
            if let shares = selection.rollups {
                """
                SELECT sender_id AS sender, messages AS n
                FROM (\(raw: shares.senders.current(anyStale: shares.anyStale))) rolled
                ORDER BY n DESC, sender_id LIMIT \(limit)
                """
            } else {
                """
                SELECT m.sender_id AS sender, COUNT(*) AS n FROM \(raw: selection.source)
                \(selection.whereClause("m.sender_id IS NOT NULL"))
                GROUP BY m.sender_id ORDER BY n DESC, m.sender_id LIMIT \(limit)
                """
            }
        return try connection.fetchAll(
            """
            SELECT t.sender, u.login, u.full_name, t.n FROM (\(counts)) t
            LEFT JOIN users u ON u.id = t.sender ORDER BY t.n DESC, t.sender
            """
        ) { .init(id: $0[0], login: $0[1], fullName: $0[2], messages: $0[3]) }
    }

    /// The dialogs with most selected messages; a dialog without a name gets its occupants' names.
    static func topDialogs(_ connection: any SQLConnection, _ selection: StatsSelection, limit: Int) throws
        -> [ArchiveStatistics.DialogCount]
    {
        let d = connection.dialect
        let names = d.jsonArrayAggregate(
            "COALESCE(NULLIF(u.full_name, ''), u.login, CAST(\(d.jsonElement("e")) AS TEXT))")
        let counts: SQLFragment =
            if let shares = selection.rollups {
                """
                SELECT dialog, n FROM (
                    SELECT dialog_id AS dialog, messages AS n FROM stats_dialogs
                    WHERE NOT (\(raw: shares.stale("dialog_id")))
                    UNION ALL
                    SELECT m.dialog_id, COUNT(*) FROM messages m WHERE \(raw: shares.stale("m.dialog_id"))
                    GROUP BY m.dialog_id
                ) rolled ORDER BY n DESC, dialog LIMIT \(limit)
                """
            } else {
                """
                SELECT m.dialog_id AS dialog, COUNT(*) AS n FROM \(raw: selection.source) \(selection.whereClause())
                GROUP BY m.dialog_id ORDER BY n DESC, m.dialog_id LIMIT \(limit)
                """
            }
        return try connection.fetchAll(
            """
            SELECT t.dialog, dd.name, dd.type,
                CASE WHEN dd.name IS NULL OR dd.name = '' THEN (
                    SELECT \(raw: names)
                    FROM \(raw: d.jsonElements(of: "dd.occupant_ids", as: "e")) LEFT JOIN users u ON u.id = \(raw: d.jsonIntegerElement("e"))
                ) END,
                t.n
            FROM (\(counts)) t LEFT JOIN dialogs dd ON dd.id = t.dialog ORDER BY t.n DESC, t.dialog
            """
        ) { row in
            let names: String? = row[3]
            let participants = names.flatMap { try? JSONValue(parsing: $0) }?.arrayValue?.compactMap(\.stringValue)
            return .init(id: row[0], name: row[1], type: row[2], participants: participants ?? [], messages: row[4])
        }
    }

    /// Median and 90th percentile of first-reply delays in private dialogs, computed by the database.
    ///
    /// A private dialog's messages are taken in `(date_sent, id)` order; wherever the sender changes,
    /// the new sender's message is a first reply and its delay is the time since the message before it
    /// (the other participant's latest). One window pass over the dialogs' index, then one sort of the
    /// delays; percentiles are nearest-rank: the delay at rank ⌈p·n⌉ of the sorted delays.
    static func replyTimes(_ connection: any SQLConnection, _ selection: StatsSelection) throws
        -> ArchiveStatistics.ReplyTimes
    {
        if let shares = selection.rollups { return try rolledReplyTimes(connection, shares) }
        let privateDialogs = "m.dialog_id IN (SELECT id FROM dialogs WHERE type = 3)"
        return try connection.fetchOne(
            """
            WITH sequence AS (
                SELECT m.date_sent - LAG(m.date_sent) OVER turn AS delay, m.sender_id <> LAG(m.sender_id) OVER turn AS changed
                FROM \(raw: selection.source) \(selection.whereClause(privateDialogs, "m.sender_id IS NOT NULL"))
                WINDOW turn AS (PARTITION BY m.dialog_id ORDER BY m.date_sent, m.id)
            ), ranked AS (
                SELECT delay, ROW_NUMBER() OVER (ORDER BY delay) AS rank, COUNT(*) OVER () AS n FROM sequence WHERE changed
            )
            SELECT COUNT(*), MAX(CASE WHEN rank = (n + 1) / 2 THEN delay END),
                MAX(CASE WHEN rank = (9 * n + 9) / 10 THEN delay END)
            FROM ranked
            """
        ) { ArchiveStatistics.ReplyTimes(replies: $0[0], median: $0[1], p90: $0[2]) } ?? ArchiveStatistics.ReplyTimes()
    }

    /// Each dialog's server count at its last reconcile beside what the archive held then and holds now.
    ///
    /// With a query, only dialogs holding a matching message are listed, with whole-dialog counts: the
    /// server's count covers the whole dialog, so a filtered count could not be compared with it.
    static func coverage(_ connection: any SQLConnection, _ selection: StatsSelection) throws
        -> [ArchiveStatistics.DialogCoverage]
    {
        let d = connection.dialect
        let filter: SQLFragment =
            selection.condition.map { "WHERE dd.id IN (SELECT m.dialog_id FROM \(raw: selection.source) WHERE \($0))" }
            ?? SQLFragment()
        let atCount = d.countWhere(
            "x.first_seen_at <= s.server_counted_at AND (x.deleted_at IS NULL OR x.deleted_at > s.server_counted_at)")
        let counts =
            if let shares = selection.dialogRollups {
                """
                SELECT dialog_id AS dialog, messages - deleted AS live, deleted, at_count FROM (
                    SELECT dialog_id, messages, deleted, at_count FROM stats_dialogs
                    WHERE NOT (\(shares.stale("dialog_id")))
                    UNION ALL SELECT dialog_id, messages, deleted, at_count FROM (\(shares.dialogShares)) fresh
                ) rolled
                """
            } else {
                """
                SELECT x.dialog_id AS dialog, \(d.countWhere("x.deleted_at IS NULL")) AS live,
                    \(d.countWhere("x.deleted_at IS NOT NULL")) AS deleted, \(atCount) AS at_count
                FROM messages x LEFT JOIN crawl_state s ON s.dialog_id = x.dialog_id GROUP BY x.dialog_id
                """
            }
        return try connection.fetchAll(
            """
            SELECT dd.id, dd.name, dd.type, dd.deleted_at IS NOT NULL, c.server_count, c.server_counted_at,
                CASE WHEN c.server_counted_at IS NULL THEN NULL ELSE COALESCE(k.at_count, 0) END,
                COALESCE(k.live, 0), COALESCE(k.deleted, 0)
            FROM dialogs dd LEFT JOIN crawl_state c ON c.dialog_id = dd.id
            LEFT JOIN (\(raw: counts)) k ON k.dialog = dd.id
            \(filter)
            ORDER BY dd.id
            """
        ) { row in
            .init(
                id: row[0], name: row[1], type: row[2], dialogDeleted: row[3], serverCount: row[4], countedAt: row[5],
                archivedAtCount: row[6], archived: row[7], deleted: row[8])
        }
    }

    /// ``replyTimes(_:_:)`` from the roll-ups: the count of first replies per delay, read in delay order (a few
    /// tens of thousands of rows); the nearest-rank percentile is the first delay whose running count reaches the
    /// rank.
    private static func rolledReplyTimes(_ connection: any SQLConnection, _ shares: StatsShares) throws
        -> ArchiveStatistics.ReplyTimes
    {
        let histogram = try connection.fetchAll(
            "SELECT delay, replies FROM (\(raw: shares.replies.current(anyStale: shares.anyStale))) rolled ORDER BY delay"
        ) { (delay: $0[0] as Int, replies: $0[1] as Int) }
        let replies = histogram.reduce(0) { $0 + $1.replies }
        func nearestRank(_ rank: Int) -> Int? {
            var seen = 0
            for bin in histogram {
                seen += bin.replies
                if seen >= rank { return bin.delay }
            }
            return nil
        }
        guard replies > 0 else { return ArchiveStatistics.ReplyTimes() }
        return .init(replies: replies, median: nearestRank((replies + 1) / 2), p90: nearestRank((9 * replies + 9) / 10))
    }
}
