import Archive
import ArgumentParser
import Crawler
import Foundation
import QuickBlox

/// `qbarchive status`: what an archive holds and how its scheduled crawls are doing.
struct StatusCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show an archive's totals, last runs and per-dialog crawl lag; --check for monitoring.",
        discussion: """
            Opens the archive read-only, so it is safe while a crawl runs. A run still marked running while \
            no crawl holds the archive's lock is shown as interrupted: its process died (the next crawl \
            records it so, and resumes from the last stored page).

            --check answers one question for cron, systemd timers and Nagios-style monitors: are the \
            scheduled crawls doing their job? It prints one line saying why and exits:
              0   the last finished run succeeded (and, with --max-age, ended recently enough)
              30  no run has succeeded yet (none ran, or the first is still running)
              31  the last finished run did not succeed (failed, partial, interrupted, or its process died)
              32  the last run succeeded, but longer ago than --max-age
              10  the archive is missing or unreadable

            Examples:
              qbarchive status --archive chat.sqlite
              qbarchive status --archive chat.sqlite --check --max-age 26h || mail -s "qbarchive" ops@example.com
              qbarchive status --archive chat.sqlite --dialogs 20
              qbarchive status --archive chat.sqlite --json | jq .health
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""
    @Option(help: "How many recent runs to list.") var runs = 10
    @Flag(help: "Print JSON for scripts and monitoring (with the check's verdict as health).") var json = false
    @Flag(help: "Monitoring: one line and an exit code saying whether the last run succeeded (see above).")
    var check = false
    @Option(
        help: ArgumentHelp(
            "With --check: how long ago the last successful run may have ended (26h, 2d, 90m).",
            valueName: "DURATION"))
    var maxAge: String?
    @Option(help: ArgumentHelp("List the N dialogs longest without a successful crawl.", valueName: "N"))
    var dialogs: Int?
    @Option(help: .hidden) var now: Int?

    mutating func validate() throws {
        try resolveArchive()
        guard runs >= 0 else { throw ValidationError("--runs must be 0 or more") }
        if let maxAge {
            guard Self.seconds(maxAge) != nil else {
                throw ValidationError("--max-age \(maxAge) is not a duration: use 26h, 2d, 90m or 3600s")
            }
        }
        if let dialogs, dialogs < 1 { throw ValidationError("--dialogs must be at least 1") }
    }

    func run() async throws {
        let store = try await ArchiveLocation.reader(archive)
        let report = try await StatusReport.read(
            store, runs: runs, crawlerPID: ArchiveLock.liveHolder(archivePath: archive),
            now: now ?? ArchiveTime.now())
        let maxAge = maxAge.flatMap(Self.seconds)
        let health = report.health(maxAge: maxAge)
        if json {
            print(report.json(maxAge: maxAge).jsonString)
        } else if check {
            print("\(health.verdict == .ok ? "OK" : "PROBLEM"): \(health.reason)")
        } else {
            print(report.text, terminator: "")
            if let dialogs { print("\n" + report.laggardLines(limit: dialogs), terminator: "") }
        }
        if check, health.exitCode != 0 { throw ExitCode(health.exitCode) }
    }

    /// `26h`, `2d`, `90m`, `3600s` or bare seconds; `nil` unless positive.
    static func seconds(_ text: String) -> Int? {
        DurationText.seconds(text).flatMap { $0 > 0 ? $0 : nil }
    }
}
