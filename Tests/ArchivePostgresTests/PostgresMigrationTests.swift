import Archive
import ArchivePostgres
import ArchiveSQL
import ArchiveTestSupport
import PostgresNIO
import Testing

/// Opening an archive: migrations applied once, in order, by exactly one of several processes; the identity.
@Suite(.postgres, .sharedCluster)
struct PostgresMigrationTests {
    @Test func openMigratesOnceAndListsTheMigrationsInOrder() async throws {
        let location = try await SharedCluster.database()
        let first = try await PostgresArchive.open(location)
        #expect(first.migratedOnOpen == ["v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups"])
        #expect(
            try await first.appliedMigrations() == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups",
            ])
        await first.close()

        let second = try await PostgresArchive.open(location)
        #expect(second.migratedOnOpen == [], "a second open applied migrations again")
        #expect(
            try await second.appliedMigrations() == [
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups",
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
                "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups",
            ],
            "exactly one opener applies each migration")
        for archive in archives { #expect(archive.migratedOnOpen == archive.migratedOnOpen.sorted()) }
        var identities: Set<ArchiveIdentity> = []
        for archive in archives {
            identities.insert(try await archive.identity())
            #expect(
                try await archive.appliedMigrations() == [
                    "v1-core", "v2-crawl-workers", "v3-listing-parts", "v4-stats-rollups",
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
        #expect(counts == ["v1-core": 1, "v2-crawl-workers": 1, "v3-listing-parts": 1, "v4-stats-rollups": 1])
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
}
