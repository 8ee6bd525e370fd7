import ArchiveTestSupport
import Foundation
import Testing

/// The one-time upgrade of an older archive through the built binary: progress on standard error, and `kill -9`
/// in the middle leaves the archive as it was, so that the next command upgrades it whole.
@Suite("Upgrading an older archive (the built binary)")
struct UpgradeCommandTests {
    @Test func killedPartWayTheUpgradeRollsBackAndTheNextRunCompletesIt() async throws {
        let directory = NSTemporaryDirectory() + "qbarchive-upgrade-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/old.sqlite"
        let count = 120_000
        try OlderArchive.make(at: path, count: count)

        // Killed once the rebuild has reported progress: what it wrote was one transaction, never committed.
        let first = try RunningCommand(["check", "--archive", path])
        let line = try await first.firstErrorLine(containing: "upgrading the archive (once)")
        #expect(line.contains("rebuilding the word index for every script"))
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()

        let check = try await CommandRunner.run(["check", "--archive", path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains("upgrading the archive (once): rebuilding the word index for every script"))
        #expect(check.stderr.contains("120,000 of 120,000 messages (100 %)"))
        #expect(check.stdout.hasPrefix("sound"))
        let found = try await CommandRunner.run(["search", "--archive", path, "--count", "北京"])
        #expect(found.stdout == "\((count - 1) / OlderArchive.texts.count + 1)\n", "\(found.stderr)")  // x % 9 == 0
        let status = try await CommandRunner.run(["search", "--archive", path, "--count", "date > 2000-01-01"])
        #expect(status.stdout == "\(count)\n")
        // Upgraded once: nothing more to say.
        let again = try await CommandRunner.run(["search", "--archive", path, "--count", "ελλαδα"])
        #expect(!again.stderr.contains("upgrading"))
    }
}
