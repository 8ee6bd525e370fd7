extension PostgresSchema {
    /// Migration `v4-stats-rollups`: the statistics roll-ups (``ArchiveSQL/StatsRollup``), as the SQLite archive's
    /// `v10-stats-rollups` makes them, and the triggers that mark a dialog stale.
    ///
    /// What differs from SQLite, and why: `stats_stale` is append-only (one row per dialog per statement, no key).
    /// A refresh deletes only the markers its snapshot saw, so a crawl worker's page committed while a refresh
    /// runs keeps its marker; with one row per dialog, the refresh would delete a marker the worker's insert had
    /// found already there (`ON CONFLICT DO NOTHING` takes no lock) and its page would count nowhere. Message
    /// triggers are per statement, over transition tables: one insert of a few dialogs per page, not per row (SQLite
    /// has none on `messages`, where a trigger costs every statement a statement journal; its writers mark dialogs);
    /// PostgreSQL allows no column list on them, so the update trigger compares old and new rows itself.
    static let statsRollups: [String] =
        [
            "CREATE TABLE stats_stale (dialog_id text COLLATE \"C\" NOT NULL)",
            """
            CREATE TABLE stats_dialog_hours (
                dialog_id text COLLATE "C" NOT NULL, hour bigint NOT NULL, messages bigint NOT NULL,
                deleted bigint NOT NULL, edits bigint NOT NULL, edited bigint NOT NULL, attached bigint NOT NULL,
                PRIMARY KEY (dialog_id, hour))
            """,
            """
            CREATE TABLE stats_hours (
                hour bigint PRIMARY KEY, messages bigint NOT NULL, deleted bigint NOT NULL, edits bigint NOT NULL,
                edited bigint NOT NULL, attached bigint NOT NULL)
            """,
            """
            CREATE TABLE stats_dialog_kinds (
                dialog_id text COLLATE "C" NOT NULL, kinds text COLLATE "C" NOT NULL, messages bigint NOT NULL,
                PRIMARY KEY (dialog_id, kinds))
            """,
            "CREATE TABLE stats_kinds (kinds text COLLATE \"C\" PRIMARY KEY, messages bigint NOT NULL)",
            """
            CREATE TABLE stats_dialog_sender_days (
                dialog_id text COLLATE "C" NOT NULL, day bigint NOT NULL, sender_id bigint NOT NULL,
                messages bigint NOT NULL, PRIMARY KEY (dialog_id, day, sender_id))
            """,
            """
            CREATE TABLE stats_sender_days (
                day bigint NOT NULL, sender_id bigint NOT NULL, messages bigint NOT NULL, PRIMARY KEY (day, sender_id))
            """,
            """
            CREATE TABLE stats_dialog_replies (
                dialog_id text COLLATE "C" NOT NULL, delay bigint NOT NULL, replies bigint NOT NULL,
                PRIMARY KEY (dialog_id, delay))
            """,
            """
            CREATE TABLE stats_dialog_senders (
                dialog_id text COLLATE "C" NOT NULL, sender_id bigint NOT NULL, messages bigint NOT NULL,
                PRIMARY KEY (dialog_id, sender_id))
            """,
            "CREATE TABLE stats_senders (sender_id bigint PRIMARY KEY, messages bigint NOT NULL)",
            "CREATE TABLE stats_replies (delay bigint PRIMARY KEY, replies bigint NOT NULL)",
            """
            CREATE TABLE stats_dialogs (
                dialog_id text COLLATE "C" PRIMARY KEY, messages bigint NOT NULL, deleted bigint NOT NULL,
                at_count bigint NOT NULL)
            """,
        ] + statsTriggers + ["INSERT INTO stats_stale (dialog_id) SELECT DISTINCT dialog_id FROM messages"]

    /// The columns a figure reads (as in the SQLite archive's triggers).
    private static let countedColumns = [
        "dialog_id", "id", "sender_id", "date_sent", "attachments", "edited", "deleted_at", "first_seen_at",
    ]

    private static var statsTriggers: [String] {
        let old = countedColumns.map { "o.\($0)" }.joined(separator: ", ")
        let new = countedColumns.map { "n.\($0)" }.joined(separator: ", ")
        func function(_ name: String, _ body: String) -> String {
            """
            CREATE FUNCTION \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN \(body); RETURN NULL; END $$
            """
        }
        return [
            function(
                "qbarchive_stats_inserted",
                "INSERT INTO stats_stale (dialog_id) SELECT DISTINCT dialog_id FROM new_rows"),
            function(
                "qbarchive_stats_deleted", "INSERT INTO stats_stale (dialog_id) SELECT DISTINCT dialog_id FROM old_rows"
            ),
            function(
                "qbarchive_stats_updated",
                """
                INSERT INTO stats_stale (dialog_id)
                SELECT DISTINCT unnest(ARRAY[o.dialog_id, n.dialog_id]) FROM old_rows o JOIN new_rows n ON n.rowid = o.rowid
                WHERE (\(old)) IS DISTINCT FROM (\(new))
                """),
            function("qbarchive_stats_dialog", "INSERT INTO stats_stale (dialog_id) VALUES (NEW.id)"),
            function("qbarchive_stats_counted", "INSERT INTO stats_stale (dialog_id) VALUES (NEW.dialog_id)"),
            """
            CREATE TRIGGER stats_stale_message_insert AFTER INSERT ON messages REFERENCING NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION qbarchive_stats_inserted()
            """,
            """
            CREATE TRIGGER stats_stale_message_delete AFTER DELETE ON messages REFERENCING OLD TABLE AS old_rows
            FOR EACH STATEMENT EXECUTE FUNCTION qbarchive_stats_deleted()
            """,
            """
            CREATE TRIGGER stats_stale_message_update AFTER UPDATE ON messages
            REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
            FOR EACH STATEMENT EXECUTE FUNCTION qbarchive_stats_updated()
            """,
            """
            CREATE TRIGGER stats_stale_dialog_type AFTER UPDATE OF type ON dialogs
            FOR EACH ROW WHEN (OLD.type IS DISTINCT FROM NEW.type) EXECUTE FUNCTION qbarchive_stats_dialog()
            """,
            """
            CREATE TRIGGER stats_stale_count_insert AFTER INSERT ON crawl_state
            FOR EACH ROW WHEN (NEW.server_counted_at IS NOT NULL) EXECUTE FUNCTION qbarchive_stats_counted()
            """,
            """
            CREATE TRIGGER stats_stale_count_update AFTER UPDATE OF server_counted_at ON crawl_state
            FOR EACH ROW WHEN (OLD.server_counted_at IS DISTINCT FROM NEW.server_counted_at)
            EXECUTE FUNCTION qbarchive_stats_counted()
            """,
        ]
    }
}
