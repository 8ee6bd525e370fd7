import Archive
import GRDB

extension SQLiteArchive {
    /// The schema, defined only through migrations; docs/archive-schema.md documents every table.
    ///
    /// Migrations are append-only: a released migration is never edited, a change is a new one.
    /// `DatabaseMigrator` records applied identifiers in `grdb_migrations`, so migrating an
    /// up-to-date archive is a no-op and reopening is idempotent.
    static let migrator = makeMigrator(progress: nil)

    /// The migrator, reporting the progress of long migrations to `progress`.
    static func makeMigrator(progress: UpgradeObserver?) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1", migrate: createSchemaV1)
        migrator.registerMigration("v2-targeted-runs") { db in
            // A run limited by `crawl --where` records its query; it does not count as a complete backup.
            try db.alter(table: "runs") { t in t.add(column: "query", .text) }
        }
        migrator.registerMigration("v3-audit-log") { db in
            // Append-only, hash-chained record of exports, imports and (later) searches and views.
            try db.create(table: "audit_log") { t in
                t.primaryKey("id", .integer)
                t.column("at", .integer).notNull()
                t.column("action", .text).notNull()
                t.column("detail", .text).notNull()
                t.column("previous_hash", .blob)
                t.column("hash", .blob).notNull()
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER audit_log_append_only_update BEFORE UPDATE ON audit_log
                    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
                    CREATE TRIGGER audit_log_append_only_delete BEFORE DELETE ON audit_log
                    BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
                    """)
        }
        migrator.registerMigration("v4-server-counts") { db in
            // What the server reported for a dialog at its last reconcile: `qbarchive stats` compares it
            // with what the archive holds (coverage). NULL until the dialog's first reconcile.
            try db.alter(table: "crawl_state") { t in
                t.add(column: "server_count", .integer)
                t.add(column: "server_counted_at", .integer)
            }
        }
        migrator.registerMigration("v5-attachment-files", migrate: createAttachmentFiles)
        migrator.registerMigration("v6-per-user-deletion", migrate: createPerUserDeletion)
        migrator.registerMigration("v7-multilingual-words") { db in
            try createMultilingualIndexes(db, progress: progress)
        }
        migrator.registerMigration("v8-erasure", migrate: createErasure)
        migrator.registerMigration("v9-legal-holds", migrate: createHolds)
        migrator.registerMigration("v10-stats-rollups", migrate: createStatsRollups)
        migrator.registerMigration("v11-word-rules-2") { db in try rebuildWordIndex(db, progress: progress) }
        return migrator
    }

    /// One row per file that attachments name (see ``AttachmentKey``): what the messages declared, and
    /// what fetching it came to. Filled from the messages already archived; kept by ``PageWriter`` after.
    private static func createAttachmentFiles(_ db: Database) throws {
        try db.create(table: "attachment_files") { t in
            t.primaryKey("id", .integer)
            t.column("key", .text).notNull().unique()
            t.column("uid", .text)
            t.column("blob_id", .text)
            t.column("url", .text)
            t.column("name", .text)
            t.column("type", .text)
            t.column("declared_size", .integer)
            t.column("declared_type", .text)
            t.column("status", .text).notNull().defaults(to: "listed")
                .check(sql: "status IN ('listed', 'ok', 'too_large', 'gone', 'external', 'failed')")
            t.column("sha256", .text)
            t.column("size", .integer)
            t.column("content_type", .text)
            t.column("source", .text)
            t.column("fetched_at", .integer)
            t.column("attempts", .integer).notNull().defaults(to: 0)
            t.column("last_error", .text)
            t.column("last_attempt_at", .integer)
            t.column("first_seen_at", .integer).notNull()
        }
        try db.create(index: "attachment_files_by_sha256", on: "attachment_files", columns: ["sha256"])
        try db.create(index: "attachment_files_by_status", on: "attachment_files", columns: ["status", "id"])
        // Set by a crawl with `--attachments none`, whose pages skip the file index; the next run that
        // indexes files re-reads every message first.
        try db.alter(table: "archive_meta") { t in
            t.add(column: "files_unindexed", .integer).notNull().defaults(to: 0)
        }
        try FileIndexer.indexAll(db, time: ArchiveTime.now())
    }

    /// QuickBlox deletes per user unless forced (reference §8): who no longer sees a message or dialog
    /// (`message_hides`, `dialog_hides`, one row per user, and the same as JSON in `hidden_for` for display),
    /// and the views behind a tombstone (`deleted_evidence`). Tombstones made before this migration keep a
    /// `NULL` evidence: they were written on one view, and docs/archive-schema.md says so.
    private static func createPerUserDeletion(_ db: Database) throws {
        for (hides, key, parent) in [
            ("message_hides", "message_id", "messages"), ("dialog_hides", "dialog_id", "dialogs"),
        ] {
            try db.create(table: hides, options: .withoutRowID) { t in
                t.column(key, .text).notNull().references(parent, column: "id")
                t.column("user_id", .integer).notNull()
                t.column("observed_at", .integer).notNull()
                t.primaryKey([key, "user_id"])
            }
        }
        try db.create(index: "message_hides_by_user", on: "message_hides", columns: ["user_id", "message_id"])
        for table in ["messages", "dialogs"] {
            try db.alter(table: table) { t in
                t.add(column: "hidden_for", .text)
                t.add(column: "deleted_evidence", .text)
            }
        }
    }

    /// `PRAGMA application_id`: "qbar", so `file(1)` and other tools can tell an archive from other SQLite files.
    static let applicationID = 0x7162_6172

    private static func createSchemaV1(_ db: Database) throws {
        try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        try db.create(table: "archive_meta") { t in
            t.primaryKey("id", .integer).check { $0 == 1 }
            t.column("archive_id", .text).notNull()
            t.column("created_at", .integer).notNull()
            t.column("format", .text).notNull()
        }
        try db.create(table: "users") { t in
            t.primaryKey("id", .integer)
            t.column("login", .text)
            t.column("email", .text)
            t.column("full_name", .text)
            t.column("phone", .text)
            t.column("created_at", .integer)
            t.column("updated_at", .integer)
            t.column("last_request_at", .integer)
            t.column("custom_data", .text)
            t.column("user_tags", .text)
            t.column("raw", .text).notNull()
            t.column("first_seen_at", .integer).notNull()
            t.column("last_seen_at", .integer).notNull()
        }
        try db.create(table: "dialogs") { t in
            t.primaryKey("id", .text)
            t.column("type", .integer).notNull()
            t.column("name", .text)
            t.column("photo", .text)
            t.column("user_id", .integer)
            t.column("occupant_ids", .text).notNull()
            t.column("admin_ids", .text)
            t.column("created_at", .integer)
            t.column("updated_at", .integer)
            t.column("last_message_date_sent", .integer)
            t.column("xmpp_room_jid", .text)
            t.column("data", .text)
            t.column("raw", .text).notNull()
            t.column("first_seen_at", .integer).notNull()
            t.column("last_seen_at", .integer).notNull()
            t.column("deleted_at", .integer)
        }
        try createMessageTables(db)
        try createCrawlTables(db)
    }

    private static func createMessageTables(_ db: Database) throws {
        try db.create(table: "messages") { t in
            t.primaryKey("rowid", .integer)
            t.column("id", .text).notNull().unique()
            t.column("dialog_id", .text).notNull().references("dialogs")
            t.column("sender_id", .integer)
            t.column("recipient_id", .integer)
            t.column("date_sent", .integer).notNull()
            t.column("created_at", .integer)
            t.column("updated_at", .integer)
            t.column("text", .text)
            t.column("attachments", .text).notNull()
            t.column("custom", .text).notNull()
            t.column("read_ids", .text).notNull()
            t.column("delivered_ids", .text).notNull()
            t.column("raw", .text).notNull()
            t.column("content_hash", .blob).notNull()
            t.column("first_seen_at", .integer).notNull()
            t.column("last_seen_at", .integer).notNull()
            t.column("edited", .integer).notNull().defaults(to: 0)
            t.column("deleted_at", .integer)
        }
        try db.create(index: "messages_by_dialog", on: "messages", columns: ["dialog_id", "date_sent", "id"])
        try db.create(index: "messages_by_sender", on: "messages", columns: ["sender_id", "date_sent"])
        try db.create(index: "messages_by_date", on: "messages", columns: ["date_sent"])

        // External-content FTS5 tables over messages.text, kept in step by explicit statements in
        // the page-write transaction (no triggers: see docs/archive-schema.md). Written as SQL
        // rather than with GRDB's FTS5 builder so that sqlite_master shows the tokenizer options in
        // their plain form (`tokenize='unicode61 remove_diacritics 2'`).
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE message_words USING fts5(
                    text, content='messages', content_rowid='rowid',
                    tokenize='unicode61 remove_diacritics 2', prefix='2 3')
                """)
        try db.execute(
            sql: """
                CREATE VIRTUAL TABLE message_trigrams USING fts5(
                    text, content='messages', content_rowid='rowid', tokenize='trigram')
                """)

        try db.create(table: "message_revisions") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("message_id", .text).notNull().references("messages", column: "id")
            t.column("revision", .integer).notNull()
            t.column("text", .text)
            t.column("attachments", .text).notNull()
            t.column("custom", .text).notNull()
            t.column("raw", .text).notNull()
            t.column("content_hash", .blob).notNull()
            t.column("updated_at", .integer)
            t.column("observed_at", .integer).notNull()
            t.column("superseded_at", .integer).notNull()
            t.uniqueKey(["message_id", "revision"])
        }
    }

    private static func createCrawlTables(_ db: Database) throws {
        try db.create(table: "dialog_membership") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("dialog_id", .text).notNull().references("dialogs")
            t.column("user_id", .integer).notNull()
            t.column("joined_observed_at", .integer).notNull()
            t.column("left_observed_at", .integer)
        }
        try db.execute(
            sql: """
                CREATE UNIQUE INDEX dialog_membership_open ON dialog_membership (dialog_id, user_id)
                WHERE left_observed_at IS NULL
                """)
        try db.create(index: "dialog_membership_by_user", on: "dialog_membership", columns: ["user_id"])

        try db.create(table: "crawl_state") { t in
            t.primaryKey("dialog_id", .text).references("dialogs")
            t.column("watermark_date_sent", .integer)
            t.column("watermark_ids", .text).notNull().defaults(to: "[]")
            t.column("checked_updated_at", .integer)
            t.column("last_success_at", .integer)
            t.column("last_error", .text)
            t.column("last_error_at", .integer)
            t.column("changed_at", .integer).notNull()
        }

        try db.create(table: "runs") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("scope", .text)
            t.column("started_at", .integer).notNull()
            t.column("ended_at", .integer)
            t.column("status", .text).notNull()
                .check(sql: "status IN ('running', 'complete', 'partial', 'failed', 'interrupted')")
            t.column("dialogs", .integer).notNull().defaults(to: 0)
            t.column("messages_new", .integer).notNull().defaults(to: 0)
            t.column("messages_edited", .integer).notNull().defaults(to: 0)
            t.column("messages_deleted", .integer).notNull().defaults(to: 0)
            t.column("requests", .integer).notNull().defaults(to: 0)
            t.column("retries", .integer).notNull().defaults(to: 0)
            t.column("bytes", .integer).notNull().defaults(to: 0)
            t.column("error", .text)
        }
    }
}
