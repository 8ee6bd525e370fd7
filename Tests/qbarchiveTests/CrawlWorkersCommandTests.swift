import Archive
import ArchivePostgres
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import QuickBloxEmulator
import Testing

/// Several `qbarchive crawl` processes on one PostgreSQL archive share one crawl through dialog leases (the
/// built binary, the emulator over HTTP, a real cluster): nothing missed, nothing fetched twice while workers
/// live, a killed worker's dialogs taken over once its lease expires, one summary per worker and one per crawl;
/// crawls that must run alone are refused while workers run, and workers while they run.
@Suite("Crawl workers on a PostgreSQL archive (the built binary)", .enabled(if: PostgresCluster.isEnabled))
struct CrawlWorkersCommandTests {
    @Test("Two workers started together crawl every dialog once and archive exactly the truth")
    func twoWorkersShareOneCrawl() async throws {
        try await CrawlCommandTests.run(latency: 20) { emulator, environment, _ in
            let url = try await PostgresCluster.processWideDatabase()
            let first = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "one", "--concurrency", "2"], environment: environment)
            let second = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "two", "--concurrency", "2"], environment: environment)
            let statuses = [await first.wait(), await second.wait()]
            let outputs = [first.standardOutput, second.standardOutput]
            #expect(statuses == [0, 0], "\(first.standardError) \(second.standardError)")
            #expect(outputs[0].hasPrefix("worker one complete: ") && outputs[1].hasPrefix("worker two complete: "))
            // Exactly one worker closed the crawl and printed its line.
            let crawlLines = outputs.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("crawl ") }
            let dialogs = try await Self.visibleDialogs(emulator)
            #expect(crawlLines.count == 1 && crawlLines[0].hasPrefix("crawl complete (2 workers): \(dialogs) dialogs"))

            #expect(try await Self.archived(url) == (try await CrawlCommandTests.visibleTruth(emulator)))
            let figures = try await Self.query(url) { connection in
                (
                    runs: try await connection.rows(
                        "SELECT status || ' ' || dialogs || ' ' || messages_new FROM runs", as: String.self),
                    workers: try await connection.rows(
                        "SELECT name || ' ' || status FROM crawl_workers ORDER BY name", as: String.self),
                    workerDialogs: try await connection.rows(
                        "SELECT sum(dialogs)::bigint FROM crawl_workers", as: Int64.self),
                    claims: try await connection.rows(
                        "SELECT DISTINCT claims FROM crawl_leases WHERE done_at IS NOT NULL", as: Int64.self),
                    open: try await connection.rows(
                        "SELECT count(*) FROM crawl_leases WHERE done_at IS NULL", as: Int64.self)
                )
            }
            let messages = try await CrawlCommandTests.visibleTruth(emulator).count
            #expect(figures.runs == ["complete \(dialogs) \(messages)"], "one run for the whole crawl")
            #expect(figures.workers == ["one complete", "two complete"])
            #expect(figures.workerDialogs == [Int64(dialogs)], "the workers' parts add up to the crawl")
            #expect(figures.claims == [1], "a dialog was claimed more than once while both workers lived")
            #expect(figures.open == [0])

            // The next crawl (one worker) walks the updated_at pass from the first crawl's start: edits arrive.
            let changes = await emulator.applyLiveChanges(40)
            let again = try await CommandRunner.run(["crawl", "--archive", url], environment: environment)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("crawl complete (1 worker)"), "\(again.stdout)")
            #expect(try await Self.archived(url) == (try await CrawlCommandTests.visibleTruth(emulator)), "\(changes)")
        }
    }

    /// A server that pages 5 messages at a time makes every dialog long: once a worker finds the others hold
    /// every dialog left, its own long dialogs go on in parts (docs/backups.md), their cursors saved on PostgreSQL
    /// once the parts end.
    @Test("Workers walk their long dialogs in parts once no dialog is left to claim; the archive is the truth")
    func workersWalkLongDialogsInParts() async throws {
        try await CrawlCommandTests.run(latency: 10, configure: { $0.maxLimit = 5 }) { emulator, environment, _ in
            let url = try await PostgresCluster.processWideDatabase()
            let workers = try ["one", "two"].map {
                try RunningCommand(
                    ["crawl", "--archive", url, "--worker-name", $0, "--concurrency", "3", "--json"],
                    environment: environment)
            }
            for worker in workers { #expect(await worker.wait() == 0, "\(worker.standardError)") }
            let parts = workers.flatMap { $0.standardOutput.split(separator: "\n") }.filter {
                $0.contains("\"event\":\"dialog_parts\"")
            }
            #expect(!parts.isEmpty, "no dialog went on in parts")
            let truth = try await CrawlCommandTests.visibleTruth(emulator)
            #expect(try await Self.archived(url) == truth)
            // Twice more: a cursor left where the parts began would have the first of them walk those pages again
            // (storing nothing new), so both would not ask the same requests.
            for _ in 0..<2 {
                let again = try await CommandRunner.run(["crawl", "--archive", url], environment: environment)
                #expect(again.status == 0, "\(again.stderr)")
            }
            let runs = try await Self.query(url) { connection in
                try await connection.rows(
                    "SELECT messages_new || ' ' || requests FROM runs ORDER BY id", as: String.self)
            }
            #expect(runs.count == 3 && runs[0].hasPrefix("\(truth.count) "), "\(runs)")
            #expect(
                runs.count == 3 && runs[1] == runs[2] && runs[1].hasPrefix("0 "), "the cursors after the parts hold")
        }
    }

    @Test("A worker killed mid-crawl: its dialogs are taken over after its lease, and the crawl completes")
    func killedWorkersDialogsAreTakenOver() async throws {
        try await CrawlCommandTests.run(latency: 150) { emulator, environment, _ in
            let url = try await PostgresCluster.processWideDatabase()
            let doomed = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "doomed", "--lease", "3s", "--json"],
                environment: environment)
            let listed = try await doomed.firstLine(containing: "\"event\":\"listed\"", timeout: .seconds(90))
            #expect(listed.contains("\"event\":\"listed\""), "\(listed)")
            let survivor = try RunningCommand(
                ["crawl", "--archive", url, "--worker-name", "survivor", "--lease", "3s", "--json"],
                environment: environment)
            // Killed once the survivor has joined: the doomed worker is paging four dialogs at 150 ms a request.
            _ = try await survivor.firstLine(containing: "\"event\":\"listed\"", timeout: .seconds(90))
            doomed.signal(SIGKILL)
            _ = await doomed.wait()
            #expect(await survivor.wait() == 0, "\(survivor.standardError)")
            let summary = try #require(survivor.standardOutput.split(separator: "\n").last.map(String.init))
            let json = try JSONValue(parsing: summary)
            #expect(json["event"] == "summary" && json["status"] == "complete", "\(summary)")
            #expect((json["worker"]?["takenOver"]?.lenientInt ?? 0) > 0, "nothing taken over: \(summary)")
            let dialogs = try await Self.visibleDialogs(emulator)
            #expect(json["crawl"]?["status"] == "complete" && json["crawl"]?["workers"] == 2, "\(summary)")
            #expect(json["crawl"]?["dialogs"]?.lenientInt == dialogs, "\(summary)")
            #expect(try await Self.archived(url) == (try await CrawlCommandTests.visibleTruth(emulator)))
            let workers = try await Self.query(url) { connection in
                try await connection.rows(
                    "SELECT name || ' ' || status FROM crawl_workers ORDER BY name", as: String.self)
            }
            #expect(workers == ["doomed interrupted", "survivor complete"])
        }
    }

    @Test("Crawls that must run alone and workers exclude each other (exit 11); a worker's bad flags exit 2")
    func aloneAndSharedExcludeEachOther() async throws {
        // A second a request: the crawls holding the lock are still at work when the others try, and are
        // stopped (SIGINT) once the test has seen what it needs.
        try await CrawlCommandTests.run(latency: 1000) { _, environment, _ in
            let url = try await PostgresCluster.processWideDatabase()
            let worker = try RunningCommand(
                ["crawl", "--archive", url, "--json", "--concurrency", "1"], environment: environment)
            _ = try await worker.firstLine(timeout: .seconds(60))
            for alone in [["--reconcile"], ["--dialog", "x"], ["--where", "date_sent > 2020-01-01"]] {
                let refused = try await CommandRunner.run(
                    ["crawl", "--archive", url] + alone, environment: environment)
                #expect(refused.status == 11, "\(alone): \(refused.stderr)")
                #expect(refused.stderr.contains("crawl lock"), "\(refused.stderr)")
            }
            worker.signal(SIGINT)
            #expect(await worker.wait() == 130)

            let aloneCrawl = try RunningCommand(
                ["crawl", "--archive", url, "--reconcile", "--json", "--concurrency", "1"], environment: environment)
            _ = try await aloneCrawl.firstLine(timeout: .seconds(60))
            let refusedWorker = try await CommandRunner.run(["crawl", "--archive", url], environment: environment)
            #expect(refusedWorker.status == 11, "\(refusedWorker.stderr)")
            #expect(refusedWorker.stderr.contains("runs alone"), "\(refusedWorker.stderr)")
            aloneCrawl.signal(SIGINT)
            #expect(await aloneCrawl.wait() == 130)
        }
        for (flags, text) in [(["--lease", "1s"], "--lease"), (["--worker-name", ""], "--worker-name")] {
            let result = try await CommandRunner.run(["crawl", "--archive", "x.sqlite"] + flags)
            #expect(result.status == 64 || result.status == 2, "\(flags)")
            #expect(result.stderr.contains(text), "\(result.stderr)")
        }
    }

    /// How many dialogs user1 (the crawls' session) can read.
    static func visibleDialogs(_ emulator: Emulator) async throws -> Int {
        var count = 0
        for line in await emulator.truthLines() {
            let json = try JSONValue(parsing: line)
            guard json["kind"] == "dialog", let record = json["record"] else { continue }
            let dialog = try Dialog(json: record)
            if dialog.type == .publicGroup || dialog.occupantIDs.contains(100_001) { count += 1 }
        }
        return count
    }

    /// The ids and texts of every message of the archive's live dialogs.
    static func archived(_ url: String) async throws -> [String: String?] {
        let postgres = try await PostgresArchive.open(PostgresLocation(parsing: url), readOnly: true)
        defer { Task { await postgres.close() } }
        let archive: any ArchiveReader = postgres
        var result: [String: String?] = [:]
        for dialog in try await archive.liveDialogIDs() as [String] {
            for message in try await archive.messages(dialogID: dialog) { result[message.id] = message.text }
        }
        return result
    }

    /// Runs `body` on a connection to the archive's database.
    static func query<T: Sendable>(_ url: String, _ body: (PostgresConnection) async throws -> T) async throws -> T {
        let client = PostgresClient(configuration: try PostgresLocation(parsing: url).clientConfiguration())
        return try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await client.withConnection { try await body($0) }
        }
    }
}

extension PostgresConnection {
    /// Every value of a one-column query.
    func rows<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: T.Type) async throws -> [T] {
        var values: [T] = []
        for try await value in try await self.query(query, logger: PostgresArchive.silent).decode(T.self) {
            values.append(value)
        }
        return values
    }
}
