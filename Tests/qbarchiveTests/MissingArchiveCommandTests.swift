import Foundation
import GRDB
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

    /// A crawl pointed at a file that is not an archive — text, an empty file, another program's SQLite
    /// database — refuses it (exit 10, nothing changed) and makes no lock file beside it.
    @Test(arguments: ["notes.txt", "empty.sqlite", "other.sqlite"])
    func aCrawlOnAFileThatIsNotAnArchiveLeavesNothing(name: String) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("not-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        switch name {
        case "notes.txt": try "meeting notes\n".write(toFile: path, atomically: false, encoding: .utf8)
        case "empty.sqlite": FileManager.default.createFile(atPath: path, contents: Data())
        default:
            let other = try DatabaseQueue(path: path)
            try await other.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
            try other.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let run = try await CommandRunner.run(
            ["crawl", "--archive", path, "--scope", "app", "--quiet"],
            environment: ["QB_ENDPOINT": "http://127.0.0.1:9", "QB_API_KEY": "k", "PATH": "/usr/bin:/bin"])
        #expect(run.status == 10, "\(run)")
        #expect(run.stderr.contains("is not a qbarchive archive"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [name])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
