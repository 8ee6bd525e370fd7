import GRDB

extension SQLiteArchive {
    /// Migration `v10-stats-rollups`: the statistics roll-ups (``StatsRollup``) and the triggers that mark a
    /// dialog stale whenever something a figure counts changes: a message stored, moved, re-dated, edited,
    /// tombstoned, erased or deleted; a dialog's type; a reconcile count. Every dialog starts stale: the next
    /// crawl run or import fills the roll-ups, and until then a report reads the messages, as before.
    ///
    /// Messages inserted or updated are marked by their writers (``markStale(_:db:)``: the page writer, the import,
    /// tombstones, erasure), not by triggers: any trigger on `messages` makes SQLite keep a statement journal for
    /// every insert and update of a message (a copy of each page it changes, to undo the statement alone), which
    /// took 16 s of a 197,000-message import that otherwise takes 33 s (measured here). Triggers stay where writes
    /// are rare: messages deleted, a dialog's type, a reconcile count.
    static func createStatsRollups(_ db: Database) throws {
        for statement in statsTables + statsTriggers { try db.execute(sql: statement) }
        try db.execute(sql: "INSERT INTO stats_stale (dialog_id) SELECT DISTINCT dialog_id FROM messages")
    }

    private static let statsTables = [
        "CREATE TABLE stats_stale (dialog_id TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE stats_dialog_hours (
            dialog_id TEXT NOT NULL, hour INTEGER NOT NULL, messages INTEGER NOT NULL, deleted INTEGER NOT NULL,
            edits INTEGER NOT NULL, edited INTEGER NOT NULL, attached INTEGER NOT NULL,
            PRIMARY KEY (dialog_id, hour)) WITHOUT ROWID
        """,
        """
        CREATE TABLE stats_hours (
            hour INTEGER PRIMARY KEY NOT NULL, messages INTEGER NOT NULL, deleted INTEGER NOT NULL,
            edits INTEGER NOT NULL, edited INTEGER NOT NULL, attached INTEGER NOT NULL) WITHOUT ROWID
        """,
        """
        CREATE TABLE stats_dialog_kinds (
            dialog_id TEXT NOT NULL, kinds TEXT NOT NULL, messages INTEGER NOT NULL,
            PRIMARY KEY (dialog_id, kinds)) WITHOUT ROWID
        """,
        "CREATE TABLE stats_kinds (kinds TEXT PRIMARY KEY NOT NULL, messages INTEGER NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE stats_dialog_sender_days (
            dialog_id TEXT NOT NULL, day INTEGER NOT NULL, sender_id INTEGER NOT NULL, messages INTEGER NOT NULL,
            PRIMARY KEY (dialog_id, day, sender_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE stats_sender_days (
            day INTEGER NOT NULL, sender_id INTEGER NOT NULL, messages INTEGER NOT NULL,
            PRIMARY KEY (day, sender_id)) WITHOUT ROWID
        """,
        """
        CREATE TABLE stats_dialog_replies (
            dialog_id TEXT NOT NULL, delay INTEGER NOT NULL, replies INTEGER NOT NULL,
            PRIMARY KEY (dialog_id, delay)) WITHOUT ROWID
        """,
        """
        CREATE TABLE stats_dialog_senders (
            dialog_id TEXT NOT NULL, sender_id INTEGER NOT NULL, messages INTEGER NOT NULL,
            PRIMARY KEY (dialog_id, sender_id)) WITHOUT ROWID
        """,
        "CREATE TABLE stats_senders (sender_id INTEGER PRIMARY KEY NOT NULL, messages INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE TABLE stats_replies (delay INTEGER PRIMARY KEY NOT NULL, replies INTEGER NOT NULL) WITHOUT ROWID",
        """
        CREATE TABLE stats_dialogs (
            dialog_id TEXT PRIMARY KEY NOT NULL, messages INTEGER NOT NULL, deleted INTEGER NOT NULL,
            at_count INTEGER NOT NULL) WITHOUT ROWID
        """,
    ]

    /// The columns a figure reads; an update that changes none of them (a re-crawl's `last_seen_at`, read
    /// receipts, a text edit's text) marks nothing.
    private static let countedColumns = [
        "dialog_id", "id", "sender_id", "date_sent", "attachments", "edited",
        "deleted_at", "first_seen_at",
    ]

    private static var statsTriggers: [String] {
        // An upsert that does nothing: it cannot fail, so SQLite opens no statement journal for the statement the
        // trigger fires in (`WHERE NOT EXISTS` over a key that could conflict did: a third of an import's time), and,
        // unlike `INSERT OR IGNORE`, the outer statement's own conflict clause does not replace it (an upsert of
        // `crawl_state` made `OR IGNORE` abort on the marker already there).
        let mark = { (dialog: String) in
            "INSERT INTO stats_stale (dialog_id) VALUES (\(dialog)) ON CONFLICT DO NOTHING;"
        }
        return [
            "CREATE TRIGGER stats_stale_message_delete AFTER DELETE ON messages BEGIN \(mark("old.dialog_id")) END",
            """
            CREATE TRIGGER stats_stale_dialog_type AFTER UPDATE OF type ON dialogs WHEN old.type IS NOT new.type
            BEGIN \(mark("new.id")) END
            """,
            """
            CREATE TRIGGER stats_stale_count_insert AFTER INSERT ON crawl_state WHEN new.server_counted_at IS NOT NULL
            BEGIN \(mark("new.dialog_id")) END
            """,
            """
            CREATE TRIGGER stats_stale_count_update AFTER UPDATE OF server_counted_at ON crawl_state
            WHEN old.server_counted_at IS NOT new.server_counted_at BEGIN \(mark("new.dialog_id")) END
            """,
        ]
    }

    /// Marks dialogs stale (``StatsRollup``): called by every writer that inserts messages or changes what a
    /// figure reads (`dialog_id`, `sender_id`, `date_sent`, `attachments`, `edited`, `deleted_at`, `first_seen_at`).
    static func markStale(_ dialogIDs: some Sequence<String>, db: Database) throws {
        let mark = try db.cachedStatement(sql: "INSERT INTO stats_stale (dialog_id) VALUES (?) ON CONFLICT DO NOTHING")
        for id in dialogIDs { try mark.execute(arguments: [id]) }
    }
}
