import Foundation
import Testing

/// `QB_ARCHIVE` names the archive when `--archive` is left out (a crawl also reads it from `--config`): scheduled
/// jobs and a shell session name it once. The flag wins; neither is a usage error that says both ways.
@Suite("QB_ARCHIVE in place of --archive (the built binary)")
struct ArchiveEnvironmentCommandTests {
    @Test("Crawl, status and search find the archive through QB_ARCHIVE or --config; --archive wins over both")
    func environmentAndConfigNameTheArchive() async throws {
        try await CrawlCommandTests.run { _, environment, directory in
            let archive = directory.appendingPathComponent("env.sqlite").path
            var withArchive = environment
            withArchive["QB_ARCHIVE"] = archive
            let crawl = try await CommandRunner.run(["crawl", "--quiet"], environment: withArchive)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            #expect(FileManager.default.fileExists(atPath: archive))
            let status = try await CommandRunner.run(["status"], environment: withArchive)
            let statusByFlag = try await CommandRunner.run(["status", "--archive", archive])
            // "N s ago" may tick between the two runs; everything else must be the same archive's.
            #expect(status.status == 0, "\(status.stderr)")
            #expect(Self.withoutAges(status.stdout) == Self.withoutAges(statusByFlag.stdout), "\(status.stdout)")
            let viaEnvironment = try await CommandRunner.run(
                ["search", "--count", "meeting"], environment: withArchive)
            let viaFlag = try await CommandRunner.run(["search", "--archive", archive, "--count", "meeting"])
            #expect(viaEnvironment.status == 0 && viaEnvironment.stdout == viaFlag.stdout, "\(viaEnvironment.stderr)")

            // The flag wins: QB_ARCHIVE names a file that does not exist.
            var wrong = environment
            wrong["QB_ARCHIVE"] = directory.appendingPathComponent("missing.sqlite").path
            let flagWins = try await CommandRunner.run(
                ["search", "--archive", archive, "--count", "meeting"], environment: wrong)
            #expect(flagWins.status == 0 && flagWins.stdout == viaFlag.stdout, "\(flagWins.stderr)")

            // A crawl's config file may name it too, beside the QB_* settings.
            let second = directory.appendingPathComponent("config.sqlite").path
            let config = directory.appendingPathComponent("qbarchive.conf").path
            let lines = environment.filter { $0.key.hasPrefix("QB_") }.map { "\($0.key)=\($0.value)" }
            try (lines + ["QB_ARCHIVE=\(second)"]).joined(separator: "\n").write(
                toFile: config, atomically: true, encoding: .utf8)
            let configured = try await CommandRunner.run(["crawl", "--config", config, "--quiet"], environment: [:])
            #expect(configured.status == 0, "\(configured.stderr)")
            #expect(FileManager.default.fileExists(atPath: second))
        }
    }

    /// `status` text with its relative times ("3 s ago", "468 days ago") blanked.
    static func withoutAges(_ text: String) -> String {
        text.replacingOccurrences(of: #"\d+ [a-z]+ ago"#, with: "… ago", options: .regularExpression)
    }

    @Test("Without --archive and QB_ARCHIVE every command that takes an archive is a usage error naming both")
    func neitherIsAUsageError() async throws {
        for arguments in [["search", "x"], ["stats"], ["status"], ["export", "--out", "x.jsonl"], ["serve"]] {
            let result = try await CommandRunner.run(arguments, environment: [:])
            #expect(result.status == 2, "\(arguments): \(result.status)")
            #expect(result.stderr.contains("--archive") && result.stderr.contains("QB_ARCHIVE"), "\(result.stderr)")
        }
    }
}
