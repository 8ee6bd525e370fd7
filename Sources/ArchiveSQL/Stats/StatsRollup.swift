import Archive

/// The roll-ups that let `qbarchive stats` and the dashboard read a few thousand rows instead of every message.
///
/// Each figure of a whole-archive report is a sum over dialogs, so each dialog's share is kept (`stats_dialog_*`
/// tables, one row per dialog and hour, list of attachment types, day and sender, sender, reply delay;
/// `stats_dialogs`, one row per dialog) beside their sums (`stats_hours`, `stats_kinds`, `stats_sender_days`,
/// `stats_senders`, `stats_replies`). Any change to a
/// dialog's messages (a page stored, an edit, a tombstone, an erasure), to its type or to its reconcile count
/// marks the dialog stale in `stats_stale`: on PostgreSQL by statement-level triggers; on SQLite by the writers
/// themselves and by triggers only where writes are rare (`SQLiteArchive.createStatsRollups` says why).
///
/// A report is always exact, whatever was refreshed: it takes the sums, takes away the stored shares of the stale
/// dialogs and adds their shares read from their messages now (``SQLArchiveReading`` reads them in one
/// transaction). ``refresh(_:writingShares:)`` moves the stale dialogs' new shares into the tables; it runs after a
/// crawl run and a bulk change, so the stale part a report reads is what changed since. Why not update the sums row
/// by row in the triggers: a reply delay depends on the message before it (an insert in the middle of a dialog
/// changes two delays), and on PostgreSQL concurrent crawl workers would queue (or deadlock) on the same hourly rows.
public enum StatsRollup {
    /// The stale dialogs' shares recomputed from their messages and moved into the roll-ups; returns how many
    /// dialogs were refreshed. Run inside one write transaction that no other refresh runs beside (the backend's
    /// ``SQLDatabase/write(_:)``): every statement must see the same stale set and the same messages.
    ///
    /// The new shares are written by the share statements of each roll-up, or by `writingShares` when given: a
    /// backend's own writer that fills every per-dialog table and `stats_dialogs` for the stale dialogs with the
    /// statements of a ``StatsSharePass`` (one read of each dialog's messages), on the same connection.
    @discardableResult
    public static func refresh(
        _ connection: any SQLConnection, writingShares: ((StatsSharePass) throws -> Void)? = nil
    ) throws -> Int {
        let dialogs = try staleDialogs(connection)
        guard dialogs > 0 else { return 0 }
        let shares = StatsShares(dialect: connection.dialect, staleAreFew: dialogs <= StatsShares.fewStale)
        for table in shares.summed {
            let stored = "\(table.perDialog) WHERE \(shares.stale("dialog_id"))"
            try connection.execute(table.addToSums(from: stored, sign: "-"))
            try connection.execute(SQLFragment.raw("DELETE FROM \(stored)"))
        }
        try connection.execute(SQLFragment.raw("DELETE FROM stats_dialogs WHERE \(shares.stale("dialog_id"))"))
        if let writingShares {
            try writingShares(StatsSharePass(shares: shares))
        } else {
            for table in shares.summed {
                try connection.execute(
                    SQLFragment.raw("INSERT INTO \(table.perDialog) (\(table.columns)) \(table.share)"))
            }
            try connection.execute(
                SQLFragment.raw("INSERT INTO stats_dialogs (\(StatsShares.dialogColumns)) \(shares.dialogShares)"))
        }
        for table in shares.summed {
            try connection.execute(
                table.addToSums(from: "\(table.perDialog) WHERE \(shares.stale("dialog_id"))", sign: ""))
            try connection.execute(SQLFragment.raw("DELETE FROM \(table.sums) WHERE \(table.counted) = 0"))
        }
        // On PostgreSQL only the markers this transaction's snapshot saw: a page committed meanwhile keeps its own.
        try connection.execute("DELETE FROM stats_stale")
        return dialogs
    }

    /// Every roll-up recomputed from the messages: the tables emptied, every dialog marked stale, then
    /// ``refresh(_:writingShares:)``; returns how many dialogs were refreshed. For roll-ups found wrong
    /// (`qbarchive check`): a refresh takes away what it stored before adding the new shares, so a sum that went
    /// wrong by itself (a bug, a hand edit, a damaged page) would stay wrong. Run as ``refresh(_:writingShares:)`` is.
    @discardableResult
    public static func rebuild(
        _ connection: any SQLConnection, writingShares: ((StatsSharePass) throws -> Void)? = nil
    ) throws -> Int {
        let shares = StatsShares(dialect: connection.dialect)
        for table in shares.summed {
            try connection.execute(SQLFragment.raw("DELETE FROM \(table.perDialog)"))
            try connection.execute(SQLFragment.raw("DELETE FROM \(table.sums)"))
        }
        try connection.execute("DELETE FROM stats_dialogs")
        try connection.execute("DELETE FROM stats_stale")
        try connection.execute(
            "INSERT INTO stats_stale (dialog_id) SELECT id FROM dialogs UNION SELECT dialog_id FROM messages")
        return try refresh(connection, writingShares: writingShares)
    }

    /// The roll-ups' statements when a whole-archive report should read them: when the stale dialogs are few
    /// (their messages are read whole), which also says the roll-ups have been filled at all; `nil` otherwise.
    static func shares(_ connection: any SQLConnection) throws -> StatsShares? {
        let stale = try staleDialogs(connection)
        guard stale > 0 else { return StatsShares(dialect: connection.dialect, anyStale: false) }
        let dialogs = try connection.fetchInt("SELECT COUNT(*) FROM dialogs") ?? 0
        guard stale * 4 <= dialogs else { return nil }
        return StatsShares(dialect: connection.dialect, anyStale: true, staleAreFew: stale <= StatsShares.fewStale)
    }

    /// How many dialogs are marked stale (PostgreSQL's markers repeat a dialog once per statement that touched it).
    private static func staleDialogs(_ connection: any SQLConnection) throws -> Int {
        try connection.fetchInt("SELECT COUNT(DISTINCT dialog_id) FROM stats_stale") ?? 0
    }
}

/// The shares of one dialog (or of a set of dialogs) in each roll-up, as `SELECT`s over their messages.
struct StatsShares {
    /// A roll-up kept per dialog and summed over dialogs.
    struct Summed {
        /// The per-dialog table and the table of sums.
        var perDialog: String
        var sums: String
        /// The key columns beside `dialog_id`, and the counted columns.
        var keys: [String]
        var counts: [String]
        /// The column that is 0 only when the row counts nothing.
        var counted: String
        /// `SELECT dialog_id, keys…, counts…` over the messages of the stale dialogs.
        var share: String
        /// The condition that a column holds a stale dialog's id.
        var stale: (_ column: String) -> String

        var columns: String { (["dialog_id"] + keys + counts).joined(separator: ", ") }

        /// Adds (`sign` empty) or takes away (`sign` "-") the shares in `rows` (a table and condition) to the sums.
        func addToSums(from rows: String, sign: String) -> SQLFragment {
            let sums = counts.map { "\(sign)SUM(\($0))" }.joined(separator: ", ")
            let updates = counts.map { "\($0) = \(self.sums).\($0) + excluded.\($0)" }.joined(separator: ", ")
            let key = keys.joined(separator: ", ")
            return .raw(
                """
                INSERT INTO \(self.sums) (\(key), \(counts.joined(separator: ", ")))
                SELECT \(key), \(sums) FROM \(rows) GROUP BY \(key)
                ON CONFLICT (\(key)) DO UPDATE SET \(updates)
                """)
        }

        /// The current sums as rows of `keys…, counts…`: stored sums, minus the stale dialogs' stored shares,
        /// plus their shares now; keys whose first count sums to 0 left out. With no dialog stale, the stored sums.
        func current(anyStale: Bool) -> String {
            guard anyStale else { return "SELECT \((keys + counts).joined(separator: ", ")) FROM \(sums)" }
            let key = keys.joined(separator: ", ")
            let negated = counts.map { "-\($0)" }.joined(separator: ", ")
            let plain = counts.joined(separator: ", ")
            let summed = counts.map { "SUM(\($0)) AS \($0)" }.joined(separator: ", ")
            return """
                SELECT \(key), \(summed) FROM (
                    SELECT \(key), \(plain) FROM \(sums)
                    UNION ALL SELECT \(key), \(negated) FROM \(perDialog) WHERE \(stale("dialog_id"))
                    UNION ALL SELECT \(key), \(plain) FROM (\(share)) fresh
                ) signed GROUP BY \(key) HAVING SUM(\(counted)) <> 0
                """
        }
    }

    static let dialogColumns = "dialog_id, messages, deleted, at_count"

    let dialect: any SQLDialect
    /// The condition that `column` holds the id of a dialog marked stale (the dialect's way of testing a value
    /// against a subquery's rows: PostgreSQL plans an index look-up per id only with an array, which it must
    /// not be given when the ids are many).
    func stale(_ column: String) -> String {
        dialect.isMember(column, of: "SELECT dialog_id FROM stats_stale", few: staleAreFew)
    }

    /// Whether any dialog is marked stale (`false` right after a refresh: the sums are read as stored).
    var anyStale = true
    /// Whether the stale dialogs are at most ``fewStale``.
    var staleAreFew = true
    /// The most stale dialogs tested as a list of values (``stale(_:)``).
    static let fewStale = 64

    /// Each message's hour and list of attachment types (`''` for none: `kinds` as the report's scan makes it).
    private func hourAndKinds(withAttachments: Bool = false) -> String {
        let sql = StatsSQL(dialect: dialect)
        return """
            SELECT m.dialog_id, \(sql.floorDivision("m.date_sent", 3600)) AS hour, m.deleted_at, m.edited,
                COALESCE(\(sql.attachmentTypes), '') AS kinds
            FROM messages m WHERE \(stale("m.dialog_id"))\(withAttachments ? " AND m.attachments <> '[]'" : "")
            """
    }

    /// Messages per hour, with deletions, edits and those with attachments.
    var hours: Summed {
        let d = dialect
        return Summed(
            perDialog: "stats_dialog_hours", sums: "stats_hours", keys: ["hour"],
            counts: ["messages", "deleted", "edits", "edited", "attached"], counted: "messages",
            share: """
                SELECT dialog_id, hour, COUNT(*) AS messages, \(d.countWhere("deleted_at IS NOT NULL")) AS deleted,
                    SUM(edited) AS edits, \(d.countWhere("edited > 0")) AS edited, \(d.countWhere("kinds <> ''")) AS attached
                FROM (\(hourAndKinds())) h GROUP BY dialog_id, hour
                """, stale: stale)
    }

    /// Messages with attachments per list of attachment types.
    var kinds: Summed {
        Summed(
            perDialog: "stats_dialog_kinds", sums: "stats_kinds", keys: ["kinds"], counts: ["messages"],
            counted: "messages",
            share: """
                SELECT dialog_id, kinds, COUNT(*) AS messages FROM (\(hourAndKinds(withAttachments: true))) h
                WHERE kinds <> '' GROUP BY dialog_id, kinds
                """, stale: stale)
    }

    /// Messages per day and sender.
    var senderDays: Summed {
        let day = StatsSQL(dialect: dialect).floorDivision("m.date_sent", 86_400)
        return Summed(
            perDialog: "stats_dialog_sender_days", sums: "stats_sender_days", keys: ["day", "sender_id"],
            counts: ["messages"], counted: "messages",
            share: """
                SELECT m.dialog_id, \(day) AS day, m.sender_id, COUNT(*) AS messages FROM messages m
                WHERE \(stale("m.dialog_id")) AND m.sender_id IS NOT NULL GROUP BY m.dialog_id, \(day), m.sender_id
                """, stale: stale)
    }

    /// Messages per sender.
    var senders: Summed {
        Summed(
            perDialog: "stats_dialog_senders", sums: "stats_senders", keys: ["sender_id"], counts: ["messages"],
            counted: "messages",
            share: """
                SELECT m.dialog_id, m.sender_id, COUNT(*) AS messages FROM messages m
                WHERE \(stale("m.dialog_id")) AND m.sender_id IS NOT NULL GROUP BY m.dialog_id, m.sender_id
                """, stale: stale)
    }

    /// First replies of private dialogs per delay, as `SQLArchiveReading.replyTimes` defines them.
    var replies: Summed {
        Summed(
            perDialog: "stats_dialog_replies", sums: "stats_replies", keys: ["delay"], counts: ["replies"],
            counted: "replies",
            share: """
                SELECT dialog_id, delay, COUNT(*) AS replies FROM (
                    SELECT m.dialog_id, m.date_sent - LAG(m.date_sent) OVER turn AS delay,
                        m.sender_id <> LAG(m.sender_id) OVER turn AS changed
                    FROM messages m
                    WHERE \(stale("m.dialog_id")) AND m.dialog_id IN (SELECT id FROM dialogs WHERE type = 3)
                        AND m.sender_id IS NOT NULL
                    WINDOW turn AS (PARTITION BY m.dialog_id ORDER BY m.date_sent, m.id)
                ) sequence WHERE changed GROUP BY dialog_id, delay
                """, stale: stale)
    }

    var summed: [Summed] { [hours, kinds, senderDays, senders, replies] }

    /// How a report's statements take the roll-ups' rows: as stored (inlined, read once per use, in key order)
    /// when no dialog is stale; materialized once when the stale dialogs' messages are read beside them.
    var materialized: String { anyStale ? "MATERIALIZED" : "NOT MATERIALIZED" }

    /// Each dialog's messages, tombstones, and messages archived at its last reconcile count (as coverage
    /// counts them: first seen by then, not deleted by then).
    var dialogShares: String {
        let d = dialect
        let atCount = d.countWhere(
            "x.first_seen_at <= s.server_counted_at AND (x.deleted_at IS NULL OR x.deleted_at > s.server_counted_at)")
        return """
            SELECT x.dialog_id AS dialog_id, COUNT(*) AS messages, \(d.countWhere("x.deleted_at IS NOT NULL")) AS deleted,
                COALESCE(\(atCount), 0) AS at_count
            FROM messages x LEFT JOIN crawl_state s ON s.dialog_id = x.dialog_id
            WHERE \(stale("x.dialog_id")) GROUP BY x.dialog_id
            """
    }
}
