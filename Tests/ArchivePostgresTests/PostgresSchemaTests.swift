import ArchivePostgres
import ArchiveTestSupport
import PostgresNIO
import Testing

/// The schema as the migrations make it: the SQLite archive's tables (`v1-core`), the append-only audit log,
/// the word and substring indexes, the crawl workers' tables (`v2-crawl-workers`, `v3-listing-parts`) and the
/// statistics roll-ups (`v4-stats-rollups`).
@Suite(.postgres, .sharedCluster)
struct PostgresSchemaTests {
    @Test func makesTheTablesOfTheSQLiteArchive() async throws {
        let location = try await SharedCluster.database()
        await (try await PostgresArchive.open(location)).close()
        let tables = try await withClient(location) { client in
            try await column(
                client, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", as: String.self)
        }
        #expect(
            tables == [
                "archive_meta", "attachment_files", "audit_log", "crawl_leases", "crawl_listing_parts", "crawl_state",
                "crawl_workers",
                "crawls", "dialog_hides", "dialog_membership", "dialogs", "erasures", "holds", "message_hides",
                "message_revisions", "message_words", "messages",
                "qbarchive_migrations", "runs", "stats_dialog_hours", "stats_dialog_kinds", "stats_dialog_replies",
                "stats_dialog_sender_days", "stats_dialog_senders",
                "stats_dialogs", "stats_hours", "stats_kinds", "stats_replies", "stats_sender_days", "stats_senders",
                "stats_stale",
                "users",
            ])
    }

    @Test func auditLogRefusesUpdateDeleteAndTruncate() async throws {
        let location = try await SharedCluster.database()
        await (try await PostgresArchive.open(location)).close()
        try await withClient(location) { client in
            let hash = ByteBuffer(bytes: [1, 2, 3])
            try await client.query(
                "INSERT INTO audit_log (at, action, detail, hash) VALUES (1, 'export', '{}', \(hash))")
            for statement: PostgresQuery in [
                "UPDATE audit_log SET action = 'import'", "DELETE FROM audit_log", "TRUNCATE audit_log",
            ] {
                await #expect {
                    try await client.query(statement)
                } throws: { error in
                    serverMessage(error).contains("audit_log is append-only")
                }
            }
            let actions = try await column(client, "SELECT action FROM audit_log", as: String.self)
            #expect(actions == ["export"])
        }
    }

    @Test func wordAndSubstringIndexesAreGIN() async throws {
        let location = try await SharedCluster.database()
        await (try await PostgresArchive.open(location)).close()
        let (extensions, indexes) = try await withClient(location) { client in
            let extensions = try await column(client, "SELECT extname FROM pg_extension", as: String.self)
            var indexes: [String: String] = [:]
            let rows = try await client.query(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'")
            for try await (name, definition) in rows.decode((String, String).self) { indexes[name] = definition }
            return (extensions, indexes)
        }
        #expect(extensions.contains("pg_trgm"))
        #expect(indexes["message_words_gin"]?.contains("USING gin (words)") == true, "\(indexes)")
        #expect(indexes["messages_words"] == nil, "v5-word-table dropped the index on messages.words")
        #expect(
            indexes["messages_trigrams"]?.contains("USING gin (COALESCE(text_folded, text) gin_trgm_ops)") == true,
            "\(indexes)")
        #expect(indexes["messages_by_date_key"]?.hasPrefix("CREATE UNIQUE INDEX") == true, "\(indexes)")
        #expect(indexes["messages_by_dialog"]?.hasSuffix("(dialog_id, date_sent, id)") == true)
        #expect(indexes["messages_by_sender"]?.hasSuffix("(sender_id, date_sent)") == true)
        #expect(indexes["messages_by_date"]?.hasSuffix("(date_sent)") == true)
        for name in [
            "users_by_login", "users_erased", "dialogs_erased", "dialog_membership_open", "dialog_membership_by_user",
            "message_hides_by_user", "attachment_files_by_sha256", "attachment_files_by_status",
        ] {
            #expect(indexes[name] != nil, "no index \(name)")
        }
    }
}
