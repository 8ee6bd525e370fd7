import Archive
import ArchivePostgres
import ArchiveSQLite
import ArchiveTestSupport
import Foundation
import HummingbirdTesting
import Logging
import PostgresNIO
import QuickBlox
import QuickBloxEmulator
import Testing

/// App scope on a PostgreSQL archive: the workers share the users' dialog lists (listing parts), and a lister
/// killed while the parts are listed is replaced by another worker, which goes on with the parts. Each archive
/// must hold exactly what one crawl alone into a SQLite archive holds (the built binary, the emulator over
/// HTTP, a real cluster).
@Suite("Crawl workers in app scope (the built binary)", .enabled(if: PostgresCluster.isEnabled))
struct CrawlWorkersAppScopeCommandTests {
    static func run(_ body: @Sendable (Emulator, [String: String], URL) async throws -> Void) async throws {
        var configuration = EmulatorConfiguration()
        configuration.seed = 33
        configuration.users = 28
        configuration.dialogs = 30
        configuration.messages = 1200
        configuration.apiKey = "workers-key"
        configuration.latencyMilliseconds = 150
        let emulator = try Emulator(configuration: configuration)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var logger = Logger(label: "workers-app-test")
        logger.logLevel = .critical
        try await emulator.buildApplication(logger: logger).test(.live) { hooks in
            let environment = ["QB_ENDPOINT": "http://localhost:\(hooks.port!)", "QB_API_KEY": "workers-key"]
            try await body(emulator, environment, directory)
        }
    }

    /// Every live dialog's messages (id and text) and the live dialogs, of any archive.
    static func contents(_ archive: any ArchiveReader) async throws -> [String: String?] {
        var result: [String: String?] = [:]
        for dialog in try await archive.liveDialogIDs() as [String] {
            result["dialog " + dialog] = .some(nil)
            for message in try await archive.messages(dialogID: dialog) { result[message.id] = message.text }
        }
        return result
    }

    static func alone(_ environment: [String: String], _ directory: URL) async throws -> [String: String?] {
        let path = directory.appendingPathComponent("alone.sqlite").path
        let result = try await CommandRunner.run(
            ["crawl", "--archive", path, "--scope", "app"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return try await contents(try SQLiteArchive.open(at: path))
    }

    static func shared(_ url: String) async throws -> [String: String?] {
        let archive = try await PostgresArchive.open(PostgresLocation(parsing: url), readOnly: true)
        defer { Task { await archive.close() } }
        return try await contents(archive)
    }

    static func listingParts(_ output: String) -> [Int] {
        output.split(separator: "\n").compactMap { line in
            guard let json = try? JSONValue(parsing: String(line)), json["event"] == "listing_part" else { return nil }
            return json["part"]?.lenientInt
        }
    }

    @Test("Two workers list the users' dialogs in parts together and archive what one crawl alone archives")
    func twoWorkersShareTheListing() async throws {
        try await Self.run { _, environment, directory in
            let expected = try await Self.alone(environment, directory)
            let url = try await PostgresCluster.processWideDatabase()
            let workers = try ["one", "two"].map { name in
                try RunningCommand(
                    [
                        "crawl", "--archive", url, "--scope", "app", "--worker-name", name, "--concurrency", "1",
                        "--json",
                    ],
                    environment: environment)
            }
            for worker in workers { #expect(await worker.wait() == 0, "\(worker.standardError)") }
            let parts = workers.map { Self.listingParts($0.standardOutput) }  // read once: the pipe is drained
            // 28 users in parts of 4: every part listed once, and both workers listed some.
            #expect(parts.flatMap { $0 }.sorted() == Array(0..<7), "\(parts)")
            #expect(parts.allSatisfy { !$0.isEmpty }, "one worker listed every part: \(parts)")
            #expect(try await Self.shared(url) == expected)
            let left = try await CrawlWorkersCommandTests.query(url) { connection in
                try await connection.rows("SELECT count(*) FROM crawl_listing_parts", as: Int64.self)
            }
            #expect(left == [0], "the parts are dropped once the dialogs are published")
        }
    }

    @Test("The lister killed while the parts are listed: another worker takes the listing over and completes it")
    func aKilledListerIsReplaced() async throws {
        try await Self.run { _, environment, directory in
            let expected = try await Self.alone(environment, directory)
            let url = try await PostgresCluster.processWideDatabase()
            let flags = ["--scope", "app", "--concurrency", "1", "--lease", "3s", "--json"]
            let doomed = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "doomed"] + flags, environment: environment)
            // The first worker begins the crawl and holds the listing; once it has listed a part, and the
            // second worker one too, the first dies with parts still to list.
            let first = try await doomed.firstLine(containing: "\"event\":\"listing_part\"", timeout: .seconds(90))
            let survivor = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "survivor"] + flags, environment: environment)
            let second = try await survivor.firstLine(
                containing: "\"event\":\"listing_part\"", timeout: .seconds(90))
            doomed.signal(SIGKILL)
            _ = await doomed.wait()
            #expect(await survivor.wait() == 0, "\(survivor.standardError)")
            #expect(Self.listingParts(first + "\n" + second).count == 2, "\(first) \(second)")
            let output = survivor.standardOutput
            let summary = try JSONValue(parsing: try #require(output.split(separator: "\n").last.map(String.init)))
            #expect(summary["crawl"]?["status"] == "complete" && summary["crawl"]?["workers"] == 2, "\(summary)")
            #expect(summary["crawl"]?["listingsFailed"]?.lenientInt ?? 0 == 0, "\(summary)")
            #expect(try await Self.shared(url) == expected)
        }
    }
}
