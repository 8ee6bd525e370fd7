import ArchiveSQLite
import Foundation
import HummingbirdTesting
import Logging
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("qbarchive crawl --attachments, status and verify-store (the built binary)")
struct AttachmentCommandTests {
    /// An emulator with about 25 files, and a scratch folder.
    static func run(latency: Int = 0, _ body: @Sendable ([String: String], URL) async throws -> Void) async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 23
        configuration.users = 4
        configuration.dialogs = 6
        configuration.messages = 300
        configuration.largeFileRate = 0
        configuration.apiKey = "cli-key"
        configuration.latencyMilliseconds = latency
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("files-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "files-cli-test")
        logger.logLevel = .critical
        try await emulator.buildApplication(logger: logger).test(.live) { hooks in
            try await body(["QB_ENDPOINT": "http://localhost:\(hooks.port!)", "QB_API_KEY": "cli-key"], directory)
        }
    }

    @Test(
        "crawl --attachments files, status counts, verify-store catches a flipped byte, --requeue and a rerun repair it"
    )
    func filesRoundTrip() async throws {
        try await Self.run { environment, directory in
            let archive = directory.appendingPathComponent("a.sqlite").path
            let crawl = ["crawl", "--archive", archive, "--scope", "app", "--attachments", "files"]
            let first = try await CommandRunner.run(crawl, environment: environment)
            #expect(first.status == 0, "\(first.stderr)")
            let downloaded = try #require(
                first.stdout.firstMatch(of: /files: (\d+) downloaded/).map { Int($0.1) ?? 0 })
            #expect(downloaded > 10)

            let status = try await CommandRunner.run(["status", "--archive", archive])
            #expect(
                status.stdout.contains("files: \(downloaded) referenced — \(downloaded) stored"), "\(status.stdout)")
            let json = try JSONValue(
                parsing: try await CommandRunner.run(["status", "--archive", archive, "--json"]).stdout)
            #expect(json["files"]?["ok"]?.lenientInt == downloaded)
            #expect(json["files"]?["stored_files"]?.lenientInt == downloaded)

            let intact = try await CommandRunner.run(["verify-store", "--archive", archive])
            #expect(intact.status == 0, "\(intact.stderr)")
            #expect(intact.stdout.contains("checked \(downloaded) stored files"))

            // One flipped byte in one stored file.
            let store = FileStore(archivePath: archive)
            let victim = try #require(store.allDigests().first)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: store.path(for: victim)))
            try handle.seek(toOffset: 10)
            let byte = try #require(try handle.read(upToCount: 1)?.first)
            try handle.seek(toOffset: 10)
            try handle.write(contentsOf: Data([byte ^ 0xFF]))
            try handle.close()
            let corrupt = try await CommandRunner.run(["verify-store", "--archive", archive, "--json"])
            #expect(corrupt.status == 20)
            let report = try JSONValue(parsing: corrupt.stdout)
            #expect(report["corrupt"] == [.string(victim)])
            #expect(report["intact"] == false)

            let requeued = try await CommandRunner.run(["verify-store", "--archive", archive, "--requeue"])
            #expect(requeued.status == 20)
            #expect(requeued.stdout.contains("CORRUPT \(victim)"))
            #expect(requeued.stdout.contains("requeued 1 attachments"))
            let again = try await CommandRunner.run(crawl, environment: environment)
            #expect(again.status == 0)
            #expect(again.stdout.contains("files: 1 downloaded"), "\(again.stdout)")
            let repaired = try await CommandRunner.run(["verify-store", "--archive", archive])
            #expect(repaired.status == 0, "\(repaired.stdout)")
        }
    }

    @Test("--json ends with a files event; metadata (the default) downloads nothing")
    func jsonAndDefault() async throws {
        try await Self.run { environment, directory in
            let archive = directory.appendingPathComponent("b.sqlite").path
            let listed = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--scope", "app"], environment: environment)
            #expect(listed.status == 0)
            #expect(!listed.stdout.contains("files:"))
            let status = try await CommandRunner.run(["status", "--archive", archive])
            #expect(status.stdout.contains("listed, not downloaded"))
            let events = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--scope", "app", "--attachments", "files", "--json"],
                environment: environment)
            #expect(events.status == 0)
            let lines = try events.stdout.split(separator: "\n").map { try JSONValue(parsing: String($0)) }
            let files = try #require(lines.first { $0["event"] == "files" })
            #expect((files["downloaded"]?.lenientInt ?? 0) > 0)
            #expect(lines.last?["event"] == "summary")
            #expect(lines.last?["files"]?["downloaded"] == files["downloaded"])
        }
    }

    @Test(
        "Bad attachment flags exit 2 with the reason",
        arguments: [
            (["--attachments", "all"], "--attachments"),
            (["--attachments", "files", "--attachment-max-bytes", "lots"], "--attachment-max-bytes lots"),
            (["--external-urls"], "apply to --attachments files"),
            (["--attachments", "files", "--attachment-concurrency", "0"], "--attachment-concurrency"),
        ])
    func badFlags(arguments: [String], message: String) async throws {
        let result = try await CommandRunner.run(
            ["crawl", "--archive", "/nonexistent/x.sqlite"] + arguments,
            environment: ["QB_ENDPOINT": "http://127.0.0.1:9", "QB_API_KEY": "k"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("kill -9 while files download: nothing is stored under a wrong name, and a rerun completes the store")
    func killNineDuringDownloads() async throws {
        // 40 ms a request: the downloads take a second or two, so the kills land among them.
        try await Self.run(latency: 40) { environment, directory in
            let archive = directory.appendingPathComponent("k.sqlite").path
            let crawl = ["crawl", "--archive", archive, "--scope", "app", "--attachments", "files", "--quiet"]
            let store = FileStore(archivePath: archive)
            for _ in 0..<3 {
                let before = store.allDigests().count
                let process = try RunningCommand(crawl, environment: environment)
                let deadline = ContinuousClock.now + .seconds(20)
                while store.allDigests().count <= before, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(10))
                }
                process.signal(SIGKILL)
                _ = await process.wait()
                for digest in store.allDigests() {
                    guard case .ok = store.verify(digest) else {
                        Issue.record("\(digest) is stored with other bytes")
                        continue
                    }
                }
            }
            let final = try await CommandRunner.run(crawl, environment: environment)
            #expect(final.status == 0, "\(final.stdout) \(final.stderr)")
            let files = try JSONValue(
                parsing: try await CommandRunner.run(["status", "--archive", archive, "--json"]).stdout)[
                    "files"]
            #expect(files?["listed"] == 0)
            #expect(files?["failed"] == 0)
            #expect((files?["ok"]?.lenientInt ?? 0) > 10)
            let verified = try await CommandRunner.run(["verify-store", "--archive", archive])
            #expect(verified.status == 0, "\(verified.stdout)")
            #expect(!verified.stdout.contains("not recorded"), "a killed run's stored file is recorded by the rerun")
            #expect((try? FileManager.default.contentsOfDirectory(atPath: store.root + "/tmp"))?.isEmpty ?? true)
        }
    }

    @Test("verify-store of a missing archive exits 10")
    func missingArchive() async throws {
        let result = try await CommandRunner.run(["verify-store", "--archive", "/nonexistent/x.sqlite"])
        #expect(result.status == 10)
        #expect(result.stderr.contains("the directory /nonexistent does not exist"))
        let inTemp = try await CommandRunner.run([
            "verify-store", "--archive", NSTemporaryDirectory() + "/no-such.sqlite",
        ])
        #expect(inTemp.status == 10 && inTemp.stderr.contains("No archive at"), "\(inTemp)")
    }
}
