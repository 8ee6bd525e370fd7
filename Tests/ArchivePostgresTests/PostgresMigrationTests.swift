import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import PostgresNIO
import QueryLanguage
import QuickBlox
import Testing

/// Opening an archive: migrations applied once, in order, by exactly one of several processes; the identity.
@Suite(.postgres, .sharedCluster)
struct PostgresMigrationTests {
    @Test func openMigratesOnceAndListsTheMigrationsInOrder() async throws {
        let location = try await SharedCluster.database()
        let first = try await PostgresArchive.open(location)
        #expect(
            first.migratedOnOpen == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups", "v5-word-table",
                "v6-word-rules-2",
            ])
        #expect(
            try await first.appliedMigrations() == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups", "v5-word-table",
                "v6-word-rules-2",
            ])
        await first.close()

        let second = try await PostgresArchive.open(location)
        #expect(second.migratedOnOpen == [], "a second open applied migrations again")
        #expect(
            try await second.appliedMigrations() == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups", "v5-word-table",
                "v6-word-rules-2",
            ])
        await second.close()
    }

    @Test func concurrentOpensOfAFreshDatabaseApplyEachMigrationOnce() async throws {
        let location = try await SharedCluster.database()
        let openers = 4
        let archives = try await withThrowingTaskGroup(of: PostgresArchive.self) { group in
            for _ in 0..<openers { group.addTask { try await PostgresArchive.open(location) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(archives.count == openers)
        // Each migration is its own transaction behind the advisory lock, so openers may share the work (one
        // applies v1 and v2, another v3): each migration once, and each opener's own in order.
        #expect(
            archives.flatMap(\.migratedOnOpen).sorted() == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups", "v5-word-table",
                "v6-word-rules-2",
            ],
            "exactly one opener applies each migration")
        for archive in archives { #expect(archive.migratedOnOpen == archive.migratedOnOpen.sorted()) }
        var identities: Set<ArchiveIdentity> = []
        for archive in archives {
            identities.insert(try await archive.identity())
            #expect(
                try await archive.appliedMigrations() == [
                    "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups", "v5-word-table",
                    "v6-word-rules-2",
                ])
            await archive.close()
        }
        #expect(identities.count == 1, "concurrent opens wrote more than one identity")

        let counts = try await withClient(location) { client in
            var counts: [String: Int64] = [:]
            let rows = try await client.query("SELECT name, count(*) FROM qbarchive_migrations GROUP BY name")
            for try await (name, count) in rows.decode((String, Int64).self) { counts[name] = count }
            return counts
        }
        #expect(
            counts == [
                "v1-core": 1, "v2-crawl-workers": 1, "v3-listing-parts": 1, "v4-stats-rollups": 1, "v5-word-table": 1,
                "v6-word-rules-2": 1,
            ])
    }

    @Test func identityIsWrittenOnceAndStableAcrossReopens() async throws {
        let location = try await SharedCluster.database()
        let first = try await PostgresArchive.open(location, now: 1_700_000_000)
        let identity = try await first.identity()
        #expect(identity.createdAt == 1_700_000_000)
        await first.close()

        let again = try await PostgresArchive.open(location, now: 1_800_000_000)
        #expect(try await again.identity() == identity)
        await again.close()
        let rows = try await withClient(location) { client in
            try await column(client, "SELECT count(*) FROM archive_meta", as: Int64.self)
        }
        #expect(rows == [1])
    }

    @Test func refusesADatabaseThatHoldsOtherTables() async throws {
        let location = try await SharedCluster.database()
        try await withClient(location) { client in
            _ = try await client.query("CREATE TABLE invoices (id bigint PRIMARY KEY)")
        }
        await #expect(throws: ArchiveError.self) { try await PostgresArchive.open(location) }
        let tables = try await withClient(location) { client in
            try await column(
                client, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", as: String.self)
        }
        #expect(tables == ["invoices"], "open created tables in a foreign database")
    }

    @Test func refusesADatabaseANewerQbarchiveMigrated() async throws {
        let location = try await SharedCluster.database()
        await (try await PostgresArchive.open(location)).close()
        try await withClient(location) { client in
            _ = try await client.query("INSERT INTO qbarchive_migrations (name) VALUES ('v99-from-the-future')")
        }
        await #expect(throws: ArchiveError.newerFormat(path: location.description)) {
            try await PostgresArchive.open(location)
        }
    }

    /// `v5-word-table` on an archive that has messages: every vector moves out of `messages`, unchanged, and every
    /// search finds what it found before. The archive is written by this build, then put back in `v4`'s shape
    /// (the vectors in `messages.words`, GIN-indexed), as an archive made by the build before would be.
    @Test func v5MovesEveryVectorAndSearchesFindTheSameMessages() async throws {
        typealias F = ArchiveFixture
        let location = try await SharedCluster.database()
        let texts = [
            "see you at the invoice meeting", "you see, the invoice", nil, "Straße über Köln — see you",
            "東京で会いましょう see you", "", "refund the invoice now", "Ελληνικά γράμματα",
        ]
        var archive = try await PostgresArchive.open(location, now: F.baseTime)
        _ = try await archive.storeDialogs(rawItems: [F.dialog(F.dialogID).json], at: F.baseTime)
        let messages = texts.enumerated().map { F.message($0.offset + 1, text: $0.element, offset: $0.offset) }
        _ = try await archive.storeMessages(
            dialogID: F.dialogID, rawItems: messages.map(\.json), cursor: CrawlCursor().advanced(over: messages),
            at: F.baseTime)
        let queries = [
            "invoice", "\"see you\"", "see -invoice", "invoice OR from:2", "NOT invoice", "köln", "東京", "γράμματα",
        ]
        func answers(_ archive: PostgresArchive) async throws -> [[String]] {
            var all: [[String]] = []
            for text in queries {
                let query = try QueryParser(now: F.baseTime).parse(text)
                all.append(try await archive.search(query, options: SearchOptions(limit: 50)).map(\.message.id))
            }
            return all
        }
        let before = try await answers(archive)
        #expect(before[0].count == 3 && before[1].count == 3, "\(before)")
        let vectors =
            "SELECT m.id || ' ' || w.words::text FROM messages m JOIN message_words w USING (date_key) ORDER BY 1"
        let stored = try await withClient(location) {
            try await column($0, PostgresQuery(unsafeSQL: vectors), as: String.self)
        }
        #expect(stored.count == 6, "a row for each message with words: \(stored)")
        await archive.close()

        try await withClient(location) { client in
            for statement in [
                "ALTER TABLE messages ADD COLUMN words tsvector",
                "UPDATE messages m SET words = w.words FROM message_words w WHERE w.date_key = m.date_key",
                "DROP TABLE message_words", "CREATE INDEX messages_words ON messages USING gin (words)",
                "DELETE FROM qbarchive_migrations WHERE name = 'v5-word-table'",
            ] {
                _ = try await client.query(PostgresQuery(unsafeSQL: statement))
            }
        }
        archive = try await PostgresArchive.open(location)
        #expect(archive.migratedOnOpen == ["v5-word-table"])
        let moved = try await withClient(location) {
            try await column($0, PostgresQuery(unsafeSQL: vectors), as: String.self)
        }
        #expect(moved == stored)
        let columns = try await withClient(location) { client in
            try await column(
                client,
                """
                SELECT attname::text FROM pg_attribute
                WHERE attrelid = 'messages'::regclass AND NOT attisdropped AND attname = 'words'
                """, as: String.self)
        }
        #expect(columns.isEmpty, "messages.words is gone")
        #expect(try await answers(archive) == before)
        #expect(try await archive.integrityProblems() == [])
        await archive.close()
    }

    /// `v6-word-rules-2` on an archive whose words the first rules made: every text with a non-ASCII character
    /// gets the second rules' vector (digits of scripts written without spaces are numbers, invisible format
    /// characters cut no word), and searches find what they missed. The old vectors are stood in for by emptied
    /// ones, the migration's record deleted.
    @Test func v6ComputesEveryNonASCIITextsWordsAgain() async throws {
        typealias F = ArchiveFixture
        let location = try await SharedCluster.database()
        let texts = [
            "ปี ๒๐๒๔", "ราคา๕๐๐บาท", "infor\u{AD}mation desk", "pass\u{2060}word reset", "year 2024", "ឆ្នាំ ២០២៤",
            "plain words",
        ]
        var archive = try await PostgresArchive.open(location, now: F.baseTime)
        _ = try await archive.storeDialogs(rawItems: [F.dialog(F.dialogID).json], at: F.baseTime)
        let messages = texts.enumerated().map { F.message($0.offset + 1, text: $0.element, offset: $0.offset) }
        _ = try await archive.storeMessages(
            dialogID: F.dialogID, rawItems: messages.map(\.json), cursor: CrawlCursor().advanced(over: messages),
            at: F.baseTime)
        await archive.close()
        let vectors =
            "SELECT m.id || ' ' || w.words::text FROM messages m JOIN message_words w USING (date_key) ORDER BY 1"
        let fresh = try await withClient(location) {
            try await column($0, PostgresQuery(unsafeSQL: vectors), as: String.self)
        }
        try await withClient(location) { client in
            for statement in [
                "UPDATE message_words w SET words = ''::tsvector FROM messages m "
                    + "WHERE m.date_key = w.date_key AND octet_length(m.text) <> char_length(m.text)",
                "DELETE FROM qbarchive_migrations WHERE name = 'v6-word-rules-2'",
            ] {
                _ = try await client.query(PostgresQuery(unsafeSQL: statement))
            }
        }
        archive = try await PostgresArchive.open(location)
        #expect(archive.migratedOnOpen == ["v6-word-rules-2"])
        let recomputed = try await withClient(location) {
            try await column($0, PostgresQuery(unsafeSQL: vectors), as: String.self)
        }
        #expect(recomputed == fresh)
        let parser = QueryParser(now: F.baseTime)
        for (query, expected) in [
            ("2024", [1, 5, 6]), ("๒๐๒๔", [1, 5, 6]), ("500", [2]), ("information", [3]), ("password", [4]),
            ("words", [7]),
        ] {
            let hits = try await archive.search(try parser.parse(query), options: SearchOptions(limit: 50))
            #expect(Set(hits.map(\.message.id)) == Set(expected.map(F.objectID)), "\(query)")
        }
        await archive.close()
    }
}
