import Archive
import ArgumentParser
import Foundation
import QueryLanguage
import Search
import Stats

/// `qbarchive stats`: what an archive holds, who talks when, how fast people reply, and how complete it is.
struct StatsCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Totals, volume, busiest senders and dialogs, reply times and coverage of an archive.",
        discussion: """
            Everything is aggregated by the database inside the archive, in one consistent read; the archive is \
            opened read-only and a crawl may run meanwhile. Without --where the report reads the statistics \
            roll-ups each crawl run keeps (a few thousand rows, whatever the archive's size) and, for the dialogs \
            changed since, their messages: always exact. Times are UTC; \
            weeks are ISO weeks starting on Monday. Deleted messages (tombstones) count in every figure and are \
            also shown apart. docs/stats.md defines every figure.

              qbarchive stats --archive chat.sqlite              a table for a terminal
              qbarchive stats --archive chat.sqlite --by month   volume per month
              qbarchive stats --archive chat.sqlite --where 'date in 2024-03'
              qbarchive stats --archive chat.sqlite --where @payment-scams --top 20
              qbarchive stats --archive chat.sqlite --json | jq .first_reply
              qbarchive stats --archive chat.sqlite --svg charts/  writes charts/*.svg
              qbarchive stats --archive chat.sqlite --json --from-messages   the same, from every message
              qbarchive stats --archive chat.sqlite --refresh    roll-ups up to date first (after an upgrade)
              qbarchive stats --archive chat.sqlite --rebuild    roll-ups recomputed (qbarchive check found them wrong)

            --where takes the query language of `qbarchive search` (or @NAME for queries/NAME.qbq) and restricts \
            every figure to the matching messages. Coverage compares each dialog's message count on the server, \
            taken by the last `qbarchive crawl --reconcile`, with what the archive held at that moment; dialogs \
            never reconciled show as not reconciled.

            Exit codes: 0 success, 1 error, 2 a malformed query or flag (the error points at the place), \
            10 archive missing or unreadable, 13 the --svg folder cannot be written.
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""
    @Option(
        name: .customLong("where"),
        help: ArgumentHelp("Only messages matching this query (or @NAME for queries/NAME.qbq).", valueName: "query"))
    var whereQuery: String?
    @Option(help: "Volume per day (default), week (ISO, from Monday) or month.") var by: StatsPeriod = .day
    @Option(help: "How many top senders and dialogs to list.") var top = 10
    @Flag(help: "Print the report as JSON (stable key order) instead of a table.") var json = false
    @Flag(
        help: """
            Read every message instead of the statistics roll-ups (slower, the same figures: a check of the \
            roll-ups).
            """)
    var fromMessages = false
    @Flag(
        help: """
            First bring the statistics roll-ups up to date (opens the archive for writing; each crawl run, import, \
            erasure and retention does it at its end): after an upgrade to this version, until the next crawl.
            """)
    var refresh = false
    @Flag(
        help: """
            First recompute every statistics roll-up from the messages (opens the archive for writing; as long as \
            --from-messages takes): when `qbarchive check` finds them wrong.
            """)
    var rebuild = false
    @Option(help: ArgumentHelp("Also write SVG charts into this folder (created if needed).", valueName: "dir"))
    var svg: String?
    @Option(help: "Where saved queries live.") var queries = "queries"
    @Option(help: .hidden) var now: Int?

    mutating func validate() throws {
        try resolveArchive()
        guard (1...1000).contains(top) else { throw ValidationError("--top must be between 1 and 1000") }
    }

    func run() async throws {
        let text = try whereQuery.map { try QueryInput.resolve($0, queries: queries) }
        let query = try text.map { try QueryInput.parse($0, now: now) }
        if rebuild {
            _ = try await ArchiveLocation.writer(archive).rebuildStatistics()
        } else if refresh {
            try await ArchiveLocation.writer(archive).settleAfterBulkChange()
        }
        let store = try await ArchiveLocation.reader(archive)
        var options = StatsOptions(query: query, period: by, top: top)
        options.readsRollups = !fromMessages
        let report: StatsReport
        do {
            report = try await StatsReport.compute(
                archive: store, options: options)
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: text ?? "")
        }
        if let svg { try writeCharts(report, to: svg) }
        print(json ? report.json() : report.table(), terminator: json ? "\n" : "")
    }

    /// Writes every chart into `directory`, then lists the files on standard error (standard output
    /// stays the report, so `--json --svg DIR` still pipes into jq).
    private func writeCharts(_ report: StatsReport, to directory: String) throws {
        let folder = URL(fileURLWithPath: directory, isDirectory: true)
        var written: [String] = []
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for chart in StatsChart.all(report) {
                let file = folder.appendingPathComponent(chart.name)
                try Data(chart.svg.utf8).write(to: file, options: .atomic)
                written.append(file.path)
            }
        } catch {
            throw CommandFailure(
                "cannot write charts to \(directory): \(error.localizedDescription)", code: ExitCode(13))
        }
        FileHandle.standardError.write(Data(written.map { "wrote \($0)\n" }.joined().utf8))
    }
}

extension StatsPeriod: ExpressibleByArgument {}
