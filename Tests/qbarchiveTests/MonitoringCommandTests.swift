import ArchiveSQLite
import Foundation
import QuickBlox
import QuickBloxEmulator
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Unattended runs watched without the service: `crawl --quiet` for cron, `status --check` for monitors,
/// per-dialog success times, and runs whose process died — through the built binary.
@Suite("Monitoring scheduled crawls: --quiet, status --check, --max-age, --dialogs, dead runs (the built binary)")
struct MonitoringCommandTests {
    static func check(_ archive: String, _ extra: [String] = []) async throws -> CommandRunner.Result {
        try await CommandRunner.run(["status", "--archive", archive, "--check"] + extra)
    }

    @Test func quietPrintsNothingOnSuccessAndTheSummaryOnFailure() async throws {
        try await CrawlCommandTests.run { _, environment, directory in
            let archive = directory.appendingPathComponent("q.sqlite").path
            let first = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect(first.status == 0 && first.stdout.isEmpty && first.stderr.isEmpty, "\(first)")
            let again = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect(again.status == 0 && again.stdout.isEmpty && again.stderr.isEmpty, "\(again)")
            var wrong = environment
            wrong["QB_AUTH_SECRET"] = "not-it"
            let refused = try await CommandRunner.run(["crawl", "--archive", archive, "--quiet"], environment: wrong)
            #expect(refused.status == 12)
            #expect(refused.stdout.isEmpty, "cron reads standard output only for success: \(refused.stdout)")
            #expect(refused.stderr.contains("Unexpected signature"), "\(refused.stderr)")
            #expect(!refused.stderr.contains("not-it"))
            // Without --quiet, output that is not a terminal (a log) still gets the one summary line.
            let logged = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
            #expect(logged.status == 0 && logged.stdout.hasPrefix("crawl complete: "), "\(logged)")
        }
    }

    @Test func statusCheckAnswersForEachWayARunCanEnd() async throws {
        try await CrawlCommandTests.run(latency: 40) { _, environment, directory in
            let archive = directory.appendingPathComponent("m.sqlite").path
            let missing = try await Self.check(archive)
            #expect(missing.status == 10)

            // An archive no crawl has run on.
            try SQLiteArchive.create(at: archive, now: ArchiveTime.now()).close()
            let never = try await Self.check(archive)
            #expect(never.status == 30 && never.stdout.hasPrefix("PROBLEM: no crawl has run"), "\(never)")

            // A failed run.
            var wrong = environment
            wrong["QB_AUTH_SECRET"] = "not-it"
            _ = try await CommandRunner.run(["crawl", "--archive", archive, "--quiet"], environment: wrong)
            let failed = try await Self.check(archive)
            #expect(failed.status == 31 && failed.stdout.contains("ended failed"), "\(failed)")
            #expect(failed.stdout.contains("no full run among the last"))
            #expect(failed.stdout.split(separator: "\n").count == 1)

            // A successful one, then the same archive judged two hours later against --max-age.
            let started = ArchiveTime.now()
            let crawl = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let fresh = try await Self.check(archive, ["--max-age", "26h"])
            #expect(fresh.status == 0 && fresh.stdout.hasPrefix("OK: the last run (#2) succeeded"), "\(fresh)")
            let later = ArchiveTime.now() + 7_200
            let stale = try await Self.check(archive, ["--max-age", "90m", "--now", "\(later)"])
            #expect(stale.status == 32 && stale.stdout.contains("more than --max-age 90 min"), "\(stale)")
            let stillFine = try await Self.check(archive, ["--max-age", "3h", "--now", "\(later)"])
            #expect(stillFine.status == 0)
            let json = try await CommandRunner.run([
                "status", "--archive", archive, "--json", "--check", "--max-age", "1h", "--now", "\(later)",
            ])
            #expect(json.status == 32)
            let health = try JSONValue(parsing: json.stdout)["health"]
            #expect(
                health?["verdict"] == "stale" && health?["exit_code"] == .int(32)
                    && health?["max_age_seconds"] == .int(3600))

            // Every dialog of a successful run has its success time.
            let report = try JSONValue(
                parsing: try await CommandRunner.run(["status", "--archive", archive, "--json"]).stdout)
            let cursors = try #require(report["dialog_cursors"]?.arrayValue)
            #expect(!cursors.isEmpty)
            for cursor in cursors {
                let at = try #require(cursor["last_success_at"]?.lenientInt, "\(cursor)")
                #expect(at >= started && at <= ArchiveTime.now())
            }
            let laggards = try await CommandRunner.run(["status", "--archive", archive, "--dialogs", "3"])
            #expect(laggards.stdout.contains("dialogs longest without a successful crawl"))
            #expect(laggards.stdout.components(separatedBy: "last success ").count == 4, "\(laggards.stdout)")

            // A crawl killed with -9: while it runs, the check still answers from the last finished run;
            // once its process is gone, its run reads as died, and the next crawl records it so.
            let running = try RunningCommand(
                ["crawl", "--archive", archive, "--quiet", "--reconcile", "--concurrency", "1"],
                environment: environment)
            for _ in 0..<500 where (try? String(contentsOfFile: archive + ".lock", encoding: .utf8))?.isEmpty ?? true {
                try await Task.sleep(for: .milliseconds(10))
            }
            let during = try await Self.check(archive)
            #expect(during.status == 0 && during.stdout.contains("a crawl is running now, pid"), "\(during)")
            running.signal(SIGKILL)
            _ = await running.wait()
            let died = try await Self.check(archive)
            #expect(died.status == 31 && died.stdout.contains("its process died"), "\(died)")
            let text = try await CommandRunner.run(["status", "--archive", archive])
            #expect(text.stdout.contains("last run: interrupted (its process died)"), "\(text.stdout)")
            let next = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect(next.status == 0, "\(next.stderr)")
            let runs = try #require(
                try JSONValue(parsing: try await CommandRunner.run(["status", "--archive", archive, "--json"]).stdout)[
                    "runs"]?
                    .arrayValue)
            #expect(runs.first?["status"] == "complete")
            #expect(runs.dropFirst().first?["status"] == "interrupted")
            #expect(runs.dropFirst().first?["error"]?.stringValue?.contains("ended without recording its end") == true)
            #expect((try await Self.check(archive)).status == 0)

            for bad in ["0", "h", "-1h", "1y", "99999999999999999999d"] {
                let usage = try await Self.check(archive, ["--max-age", bad])
                #expect(usage.status == 2 && usage.stderr.contains("--max-age"), "\(bad): \(usage)")
            }
        }
    }
}

/// A server that accepts a request and then says nothing costs the idle timeout, not the whole request
/// timeout: the request is abandoned and retried.
@Suite("Stalled connections are abandoned after --idle-timeout and retried (the built binary)")
struct StallCommandTests {
    @Test func aCrawlThroughStallsAbandonsEachAndArchivesEverything() async throws {
        try await CrawlCommandTests.run(configure: {
            $0.stallRate = 0.1
            $0.stallSeconds = 6
        }) { emulator, environment, directory in
            let archive = directory.appendingPathComponent("stalls.sqlite").path
            let crawl = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet", "--idle-timeout", "1s", "--concurrency", "4"],
                environment: environment)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            #expect(
                try await CrawlCommandTests.archived(archive) == (try await CrawlCommandTests.visibleTruth(emulator)))
            let endpoint = try #require(environment["QB_ENDPOINT"])
            let (data, _) = try await URLSession.shared.data(from: URL(string: endpoint + "/_emulator/stats")!)
            let stalls = try #require(
                try JSONValue(parsing: String(decoding: data, as: UTF8.self))["faults"]?["stall"]?.lenientInt)
            #expect(stalls > 0, "the emulator stalled no request")
            // Had a stalled request been waited out, its late answer would have been taken without a retry.
            let report = try JSONValue(
                parsing: try await CommandRunner.run(["status", "--archive", archive, "--json"]).stdout)
            let retries = try #require(report["runs"]?.arrayValue?.first?["retries"]?.lenientInt)
            #expect(retries >= stalls, "\(stalls) stalls, \(retries) retries")
        }
        for bad in ["0s", "2h", "soon"] {
            let usage = try await CommandRunner.run([
                "crawl", "--archive", "/nonexistent/x.sqlite", "--idle-timeout", bad,
            ])
            #expect(usage.status == 2 && usage.stderr.contains("--idle-timeout"), "\(bad): \(usage)")
        }
    }
}
