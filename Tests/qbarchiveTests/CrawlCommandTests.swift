import ArchiveSQLite
import Foundation
import GRDB
import HummingbirdTesting
import Logging
import QuickBlox
import QuickBloxEmulator
import Testing

@testable import Crawler

@Suite("qbarchive crawl (the built binary)")
struct CrawlCommandTests {
    static let secret = "cmd-test-s3cret"
    static let password = "password1"

    /// An emulator on a loopback port and a scratch folder for archives.
    static func run(
        latency: Int = 0, configure: (inout EmulatorConfiguration) -> Void = { _ in },
        _ body: @Sendable (Emulator, [String: String], URL) async throws -> Void
    ) async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 21
        configuration.users = 6
        configuration.dialogs = 15
        configuration.messages = 2500
        configuration.authSecret = secret
        configuration.latencyMilliseconds = latency
        configure(&configuration)
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("crawl-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "crawl-cli-test")
        logger.logLevel = .critical
        try await emulator.buildApplication(logger: logger).test(.live) { hooks in
            let environment = [
                "QB_ENDPOINT": "http://localhost:\(hooks.port!)", "QB_APP_ID": "1", "QB_AUTH_KEY": "emulator-auth-key",
                "QB_AUTH_SECRET": secret, "QB_LOGIN": "user1", "QB_PASSWORD": password,
            ]
            try await body(emulator, environment, directory)
        }
    }

    /// The ids and texts of the truth's messages user1 can read.
    static func visibleTruth(_ emulator: Emulator) async throws -> [String: String?] {
        var dialogs: Set<String> = []
        var messages: [String: (String, String?)] = [:]
        for line in await emulator.truthLines() {
            let json = try JSONValue(parsing: line)
            guard let record = json["record"] else { continue }
            if json["kind"] == "dialog" {
                let dialog = try Dialog(json: record)
                if dialog.type == .publicGroup || dialog.occupantIDs.contains(100_001) { dialogs.insert(dialog.id) }
            } else if json["kind"] == "message" {
                let message = try Message(json: record)
                messages[message.id] = (message.chatDialogID, message.text)
            }
        }
        return messages.filter { dialogs.contains($0.value.0) }.mapValues(\.1)
    }

    static func archived(_ path: String) async throws -> [String: String?] {
        let archive = try SQLiteArchive.open(at: path)
        var result: [String: String?] = [:]
        for dialog in try await archive.liveDialogIDs() as [String] {
            for message in try await archive.messages(dialogID: dialog) { result[message.id] = message.text }
        }
        return result
    }

    @Test("A crawl prints one summary line, exits 0, and its archive equals the truth; no secret is printed")
    func crawlSucceeds() async throws {
        try await Self.run { emulator, environment, directory in
            let archive = directory.appendingPathComponent("a.sqlite").path
            let result = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.hasPrefix("crawl complete: "))
            #expect(result.stdout.split(separator: "\n").count == 1)
            for secret in [Self.secret, Self.password] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
            }
            let archived = try await Self.archived(archive)
            #expect(archived == (try await Self.visibleTruth(emulator)))
            let status = try await CommandRunner.run(["status", "--archive", archive, "--json"])
            #expect(status.status == 0)
            let report = try JSONValue(parsing: status.stdout)
            #expect(report["messages"]?.lenientInt == archived.count)
            #expect(report["runs"]?.arrayValue?.first?["status"] == "complete")
            let text = try await CommandRunner.run(["status", "--archive", archive])
            #expect(text.stdout.contains("last run: complete"))
            let missing = try await CommandRunner.run(["status", "--archive", archive + ".missing"])
            #expect(missing.status == 10)
            let file = try Data(contentsOf: URL(fileURLWithPath: archive))
            #expect(file.range(of: Data(Self.secret.utf8)) == nil, "the archive holds no secret")
        }
    }

    @Test("Exit codes: 12 for refused credentials, 2 for missing settings, 11 while another crawl holds the lock")
    func exitCodes() async throws {
        try await Self.run { _, environment, directory in
            let archive = directory.appendingPathComponent("b.sqlite").path
            var wrong = environment
            wrong["QB_AUTH_SECRET"] = "not-it"
            let refused = try await CommandRunner.run(["crawl", "--archive", archive], environment: wrong)
            #expect(refused.status == 12)
            #expect(refused.stdout.contains("Unexpected signature"))
            #expect(!refused.stdout.contains("not-it") && !refused.stderr.contains("not-it"))

            var missing = environment
            missing["QB_LOGIN"] = nil
            let usage = try await CommandRunner.run(["crawl", "--archive", archive], environment: missing)
            #expect(usage.status == 2)
            #expect(usage.stderr.contains("QB_LOGIN is required"))

            let lock = try ArchiveLock(archivePath: archive)
            let locked = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(locked.status == 11)
            #expect(locked.stderr.contains("pid \(getpid())"))
            lock.release()

            try Data("not a database".utf8).write(to: URL(fileURLWithPath: archive + ".bad"))
            let unreadable = try await CommandRunner.run(
                ["crawl", "--archive", archive + ".bad"], environment: environment)
            #expect(unreadable.status == 10)

            // An archive in a directory that does not exist is named as such: 10, not "locked", 11.
            let unwritable = try await CommandRunner.run(
                ["crawl", "--archive", directory.appendingPathComponent("missing/c.sqlite").path],
                environment: environment)
            #expect(unwritable.status == 10)
            #expect(unwritable.stderr.contains("missing does not exist"), "\(unwritable.stderr)")
            // A lock file that cannot be created (a read-only directory) is an unwritable archive, 10 too.
            if getuid() != 0 {
                let readOnly = directory.appendingPathComponent("read-only")
                try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
                chmod(readOnly.path, 0o555)
                defer { chmod(readOnly.path, 0o755) }
                let locked = try await CommandRunner.run(
                    ["crawl", "--archive", readOnly.appendingPathComponent("c.sqlite").path], environment: environment)
                #expect(locked.status == 10 && locked.stderr.contains("cannot open the lock file"), "\(locked.stderr)")
            }
        }
    }

    @Test("kill -9 at random points, then a rerun: the archive equals the truth")
    func killNine() async throws {
        try await Self.run(latency: 3) { emulator, environment, directory in
            let archive = directory.appendingPathComponent("k.sqlite").path
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<4 {
                let crawl = try RunningCommand(
                    ["crawl", "--archive", archive, "--concurrency", "2", "--quiet"], environment: environment)
                try await Task.sleep(for: .milliseconds(Int.random(in: 80...400, using: &generator)))
                crawl.signal(SIGKILL)
                _ = await crawl.wait()
            }
            let final = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(final.status == 0, "\(final.stderr)")
            #expect(try await Self.archived(archive) == (try await Self.visibleTruth(emulator)))
        }
    }

    @Test(
        "SIGINT (Ctrl-C) and SIGTERM (systemctl stop) end a crawl cleanly: exit 130, the run recorded as interrupted, the next run completes",
        arguments: [(SIGINT, 1), (SIGTERM, 4)])
    func interrupted(by signal: Int32, concurrency: Int) async throws {
        // 50 ms a request makes the crawl take a few seconds, so the signal lands mid-crawl.
        try await Self.run(latency: 50) { emulator, environment, directory in
            let archive = directory.appendingPathComponent("i.sqlite").path
            let crawl = try RunningCommand(
                ["crawl", "--archive", archive, "--concurrency", String(concurrency), "--quiet"],
                environment: environment)
            // Signal once the crawl catches the signal, then a little later so that it lands mid-crawl;
            // not after a fixed time alone, which a loaded machine may not honour.
            for _ in 0..<600 where !crawl.catches(signal) { try await Task.sleep(for: .milliseconds(20)) }
            try await Task.sleep(for: .milliseconds(400))
            crawl.signal(signal)
            let code = await crawl.wait()
            let said = (try? await crawl.firstLine()) ?? ""
            #expect(code == 130, "\(said)")
            let status = try await CommandRunner.run(["status", "--archive", archive, "--json"])
            let run = try JSONValue(parsing: status.stdout)["runs"]?.arrayValue?.first
            #expect(run?["status"] == "interrupted")
            // The interrupted run counts what it stored, the dialog under way too (its pages are kept).
            let stored = try await DatabaseQueue(path: archive).read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") ?? 0
            }
            #expect(run?["new"] == .int(stored), "\(status.stdout)")
            let final = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(final.status == 0)
            #expect(try await Self.archived(archive) == (try await Self.visibleTruth(emulator)))
        }
    }
}
