import ArchiveSQL
import ArchiveSQLite
import Foundation
import QuickBlox
import Testing

@Suite("qbarchive stats (the built binary)")
struct StatsCommandTests {
    @Test("check finds statistics roll-ups that went wrong; stats --rebuild mends them")
    func checkFindsWrongRollupsAndRebuildMendsThem() async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let sound = try await CommandRunner.run(["check", "--archive", archive])
            #expect(sound.status == 0, "\(sound.stdout)\(sound.stderr)")
            #expect(sound.stdout.contains("statistics roll-ups agree"))
            try await SQLiteArchive.open(at: archive).sql.write { connection in
                try connection.execute("UPDATE stats_senders SET messages = messages + 1")
            }
            let wrong = try await CommandRunner.run(["check", "--archive", archive, "--json"])
            #expect(wrong.status == 20, "\(wrong.stdout)\(wrong.stderr)")
            let problems = try JSONValue(parsing: wrong.stdout)["problems"]?.arrayValue ?? []
            #expect(problems.count == 1)
            let problem = problems.first?.stringValue ?? ""
            #expect(problem.contains("statistics roll-ups disagree") && problem.contains("topSenders"), "\(problem)")
            #expect(problem.contains("qbarchive stats --rebuild"))

            let rebuilt = try await CommandRunner.run(["stats", "--archive", archive, "--json", "--rebuild"])
            #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
            let scanned = try await CommandRunner.run(["stats", "--archive", archive, "--json", "--from-messages"])
            #expect(rebuilt.stdout == scanned.stdout)
            let mended = try await CommandRunner.run(["check", "--archive", archive])
            #expect(mended.status == 0, "\(mended.stdout)\(mended.stderr)")
        }
    }

    @Test func printsATableJSONAndChartsAndRefusesBadInput() async throws {
        try await SearchCommandTests.withArchive { archive, total in
            let table = try await CommandRunner.run(["stats", "--archive", archive])
            #expect(table.status == 0, "\(table.stderr)")
            for heading in [
                "TOTALS", "VOLUME PER DAY", "ACTIVITY BY HOUR OF WEEK", "TOP SENDERS", "TOP DIALOGS",
                "FIRST REPLY IN PRIVATE DIALOGS", "COVERAGE",
            ] {
                #expect(table.stdout.contains(heading), "missing \(heading)")
            }

            let json = try await CommandRunner.run([
                "stats", "--archive", archive, "--json", "--by", "month", "--top", "3",
            ])
            #expect(json.status == 0, "\(json.stderr)")
            let report = try JSONValue(parsing: json.stdout)
            #expect(report["totals"]?["messages"]?.lenientInt == total)
            #expect(report["period"] == "month")
            #expect(report["top_senders"]?.arrayValue?.count == 3)
            #expect(report["coverage"]?["not_reconciled"] == report["coverage"]?["dialogs"])

            // The crawl left the roll-ups fresh: the report read from them is the report read from every message.
            let scanned = try await CommandRunner.run([
                "stats", "--archive", archive, "--json", "--by", "month", "--top", "3", "--from-messages",
            ])
            #expect(scanned.status == 0, "\(scanned.stderr)")
            #expect(scanned.stdout == json.stdout)
            let refreshed = try await CommandRunner.run([
                "stats", "--archive", archive, "--json", "--by", "month", "--top", "3", "--refresh",
            ])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(refreshed.stdout == json.stdout)

            let restricted = try await CommandRunner.run([
                "stats", "--archive", archive, "--json", "--where", "from:user2", "--queries",
                SearchCommandTests.queries,
            ])
            #expect(restricted.status == 0)
            let user2 = try JSONValue(parsing: restricted.stdout)
            #expect(user2["query"] == "from:user2")
            #expect(user2["top_senders"]?.arrayValue?.map { $0["login"] } == ["user2"])

            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stats-svg-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let charts = try await CommandRunner.run([
                "stats", "--archive", archive, "--svg", folder.appendingPathComponent("charts").path, "--json",
            ])
            #expect(charts.status == 0, "\(charts.stderr)")
            let files = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("charts").path)
            #expect(
                Set(files) == [
                    "volume.svg", "hour-of-week.svg", "daily-active.svg", "top-senders.svg", "top-dialogs.svg",
                ])
            #expect(charts.stderr.contains("wrote "))
            #expect((try? JSONValue(parsing: charts.stdout)) != nil, "standard output stays the JSON report")

            let bad = try await CommandRunner.run(["stats", "--archive", archive, "--where", "sendr_id = 5"])
            #expect(bad.status == 2)
            #expect(bad.stdout.isEmpty)
            #expect(bad.stderr.contains("sendr_id = 5\n^"))
            let unknownLogin = try await CommandRunner.run(["stats", "--archive", archive, "--where", "from:nobody"])
            #expect(unknownLogin.status == 2)
            #expect(unknownLogin.stderr.contains("no archived user has the login or name `nobody`"))

            let missing = try await CommandRunner.run(["stats", "--archive", archive + ".missing"])
            #expect(missing.status == 10)
            #expect(missing.stderr.contains("No archive at"))

            let help = try await CommandRunner.run(["stats", "--help"])
            #expect(
                help.stdout.contains("--where") && help.stdout.contains("--from-messages")
                    && help.stdout.contains("--refresh")
                    && help.stdout.contains("qbarchive stats --archive chat.sqlite --by month"))
        }
    }
}
