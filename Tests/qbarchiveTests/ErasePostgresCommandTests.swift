import ArchivePostgres
import ArchiveTestSupport
import Foundation
import Testing

/// `erase`, `hold` and `retain` through the built binary on a `postgresql://` archive crawled from the emulator.
@Suite("erase, hold and retain on a PostgreSQL archive (the built binary)", .enabled(if: PostgresCluster.isEnabled))
struct ErasePostgresCommandTests {
    @Test("A hold refuses an erasure (15); released, the erasure runs and search finds nothing; 11 under a crawl")
    func eraseAndHoldOnPostgres() async throws {
        try await CrawlCommandTests.run { _, environment, _ in
            let archive = try await PostgresCluster.processWideDatabase()
            let crawl = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let before = try await CommandRunner.run(["search", "--archive", archive, "from:user2", "--count"])
            #expect(before.status == 0 && before.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != "0")

            let add = try await CommandRunner.run(
                ["hold", "add", "--archive", archive, "--user", "user2", "--reason", "case 1", "--json"])
            #expect(add.status == 0, "\(add.stderr)")
            let list = try await CommandRunner.run(["hold", "list", "--archive", archive])
            #expect(list.status == 0 && list.stdout.contains("case 1"), "\(list.stderr)")
            let refused = try await CommandRunner.run(
                ["erase", "--archive", archive, "--user", "user2", "--reason", "GDPR 1"])
            #expect(refused.status == 15, "\(refused.stderr)")
            let release = try await CommandRunner.run(
                ["hold", "release", "1", "--archive", archive, "--reason", "closed"])
            #expect(release.status == 0, "\(release.stderr)")

            // A crawl worker holds the crawl lock shared: erase and retain wait for none (exit 11).
            let worker = try await PostgresArchive.open(PostgresLocation(parsing: archive))
            let lock = try await worker.lockForCrawl(shared: true)
            #expect(lock != nil)
            let locked = try await CommandRunner.run(
                ["erase", "--archive", archive, "--user", "user2", "--reason", "GDPR 1"])
            #expect(locked.status == 11 && locked.stderr.contains("no crawl runs"), "\(locked.stderr)")
            let retainLocked = try await CommandRunner.run(["retain", "--archive", archive, "--older-than", "1d"])
            #expect(retainLocked.status == 11, "\(retainLocked.stderr)")
            await lock?.unlock()
            await worker.close()

            let dry = try await CommandRunner.run(
                ["erase", "--archive", archive, "--user", "user2", "--dry-run", "--json"])
            #expect(dry.status == 0 && dry.stdout.contains("\"dry_run\":true"), "\(dry.stderr)")
            let erased = try await CommandRunner.run(
                ["erase", "--archive", archive, "--user", "user2", "--reason", "GDPR 1", "--json"])
            #expect(erased.status == 0, "\(erased.stderr)")
            #expect(erased.stdout.contains("\"pseudonym\":\"erased-"), "\(erased.stdout)")
            let after = try await CommandRunner.run(["search", "--archive", archive, "from:user2", "--count"])
            #expect(after.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0" || after.status != 0)
            let audit = try await CommandRunner.run(["audit", "list", "--archive", archive])
            #expect(audit.status == 0 && audit.stdout.contains("erase"), "\(audit.stderr)")
            let unknown = try await CommandRunner.run(
                ["erase", "--archive", archive, "--message", "ffffffffffffffffffffffff"])
            #expect(unknown.status == 14, "\(unknown.stderr)")
            let retain = try await CommandRunner.run(
                ["retain", "--archive", archive, "--older-than", "1d", "--json"])
            #expect(retain.status == 0, "\(retain.stderr)")
        }
    }
}
