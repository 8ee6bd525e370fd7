import Archive
import ArchivePostgres
import ArchiveTestSupport
import PostgresNIO
import QuickBlox
import Testing

/// PostgreSQL keeps samples of column values as planner statistics (`pg_statistic`, readable through the
/// `pg_stats` view by anyone who may read the table): logins, e-mail addresses, phone numbers, names, message
/// texts and raw records. An erasure must not leave the erased person's values there.
@Suite("PostgreSQL: an erasure leaves nothing in the planner's statistics", .postgres, .sharedCluster)
struct PostgresErasureStatisticsTests {
    typealias F = ArchiveFixture

    /// Every value PostgreSQL's statistics hold for the archive's tables, as text.
    static func statistics(_ location: PostgresLocation) async throws -> String {
        try await withClient(location) { client in
            try await column(
                client,
                """
                SELECT concat_ws(' ', tablename, attname, most_common_vals::text, histogram_bounds::text,
                                 most_common_elems::text)
                FROM pg_stats WHERE schemaname = current_schema()
                """, as: String.self
            ).joined(separator: "\n")
        }
    }

    @Test("Erasing a person replaces the statistics that sampled their login, e-mail, phone, name and texts")
    func erasedValuesLeaveTheStatistics() async throws {
        let pair = try await WriterPair.make()
        defer { Task { await pair.close() } }
        let users = (1...12).map { id in
            User(
                id: id, login: "login\(id)x", email: "mail\(id)@erase.example", fullName: "Name\(id) Person",
                phone: "+4915550\(id)77", createdAt: 0, updatedAt: 0)
        }
        _ = try await pair.postgres.storeUsers(users.map { ($0, $0.json) }, observedAt: F.baseTime)
        try await pair.write(
            (1...24).map { n in
                var message = F.message(n, text: "Geheimnis\(n)Wort", offset: n)
                message.senderID = 1 + n % 12
                return message
            })
        try await withClient(pair.location) { client in
            _ = try await client.query("ANALYZE users, messages, message_revisions, dialogs")
        }
        let victim = 7
        let theirs =
            ["login7x", "mail7@erase.example", "+4915550777", "Name7 Person"]
            + (1...24).filter { 1 + $0 % 12 == victim }.map { "Geheimnis\($0)Wort" }
        let before = try await Self.statistics(pair.location)
        // Small tables are sampled whole: the test means something only if the values are there to begin with.
        #expect(theirs.allSatisfy { before.contains($0) }, "\(before)")

        _ = try await pair.postgres.erase(.user(String(victim)), reason: "test", dryRun: false, at: F.baseTime + 10)

        let after = try await Self.statistics(pair.location)
        for value in theirs { #expect(!after.contains(value), "\(value) still in pg_stats") }
        #expect(after.contains("login8x") && after.contains("Geheimnis8Wort"), "others' statistics stay")
    }
}
