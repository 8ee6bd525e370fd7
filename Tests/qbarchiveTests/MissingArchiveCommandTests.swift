import Foundation
import Testing

/// A wrong `--archive` path is an error (exit 10) that leaves nothing beside it: erase and retain once made
/// `PATH.lock` there before finding no archive.
@Suite("Commands on a missing archive leave no lock file behind (the built binary)")
struct MissingArchiveCommandTests {
    @Test(arguments: [
        ["erase", "--user", "100001"], ["erase", "--message", "0123456789abcdef01234567", "--dry-run"],
        ["retain", "--older-than", "30d"], ["retain", "--older-than", "30d", "--apply"],
    ])
    func aMissingArchiveIsSaidAndLeavesNothing(command: [String]) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let archive = directory.appendingPathComponent("typo.sqlite").path
        let run = try await CommandRunner.run(command + ["--archive", archive])
        #expect(run.status == 10, "\(run)")
        #expect(run.stderr.contains("No archive at"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
