import Archive
import ArgumentParser
import Crawler
import Foundation
import QueryLanguage
import QuickBlox
import Search

/// `qbarchive search`: find messages in an archive with the moderation query language.
struct SearchCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search an archive's messages with a query (or a saved @query).",
        discussion: """
            Words and "quoted phrases" search message text in every script: case and accents are ignored \
            (cafe finds Café, ελλαδα finds ΕΛΛΆΔΑ, istanbul finds İSTANBUL), a word inside Chinese, Japanese, \
            Korean or Thai text is found (北京 in 我们明天在北京见面), Arabic prefixes do not hide a word (كتاب \
            finds والكتاب), emoji are words (🎉). refu* is a prefix. Predicates mirror QuickBlox's filters \
            (field op value, or the REST form field[op]=value), and the operators of Slack and Gmail work.

              refund "money back"                    both, anywhere in the text
              from:alice in:general after:2024-03-01 a sender (login, id or name), a dialog, a date
              before:2024-01-01 has:link is:edited   before a day; with a link; edited
              during:2024-03 has:image -is:private   a whole month, with an image, not one-to-one
              message ctn "bit.ly"                   substring (QuickBlox's ctn), any characters
              sender_id[in]=34,45&message[ctn]=refund   copied from a QuickBlox request
              date between 2024-01-01 and 2024-01-31 a range, both days included
              @links-in-private                      a saved query from queries/
              -- '-from:bot refund'                  a query that begins with - goes after --

            A query is understood or refused: an unknown field, login, dialog name or date, a contradiction \
            (after:2025-01-01 before:2024-01-01) or another language's operator (like, ~) is an error with a \
            caret and a suggestion. When nothing matches, standard error says how the query was understood; \
            --explain prints that reading first. See docs/query-language.md.

            Results go to standard output; in table format standard error says how many matched in all and \
            which are shown ("showing 1–50 of 1,234 matching messages"). Dates in the query and in the output are \
            UTC unless --tz names a zone.

            Opens the archive read-only: safe while a crawl runs. Exit codes: 0 success (also when nothing \
            matches), 2 a malformed query or flag (the error points at the place), 10 archive missing or unreadable.
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""
    @Argument(
        help: """
            The query, or @NAME for queries/NAME.qbq. Several words are joined with spaces, as typed: \
            search from:alice refund is search 'from:alice refund'.
            """)
    var query: [String]
    @Option(help: "table (default), jsonl, csv or json (one document with total, shown and the hits).")
    var format: SearchFormat = .table
    @Flag(help: "Shorthand for --format json.") var json = false
    @Option(help: "At most this many results (default 50).") var limit: Int?
    @Option(help: "Skip this many results first (paging).") var offset = 0
    @Flag(help: "Every match, read page by page (instead of --limit).") var all = false
    @Option(
        help: """
            newest (default; also -date, written --sort=-date), oldest (also date) or rank (best match first).
            """)
    var sort: SearchOptions.Sort = .newest
    @Option(
        help: """
            The time zone for dates in the query (on:2024-03-01 is that day there) and in the output: UTC (default), \
            local, an IANA name (Europe/Berlin) or an offset (+02:00; a negative one attached: --tz=-05:00).
            """)
    var tz: String?
    @Option(help: "Show N messages before and after each hit, as a transcript (table format).") var context = 0
    @Flag(help: "Print only the number of matching messages.") var count = false
    @Flag(
        help: "Print how the query was understood, the SQL, its arguments, and what could be pushed down to QuickBlox.")
    var explain = false
    @Flag(help: "Print how long the search took (after opening the archive) to standard error.") var timing = false
    @Option(help: "Where saved queries live.") var queries = "queries"
    @Option(help: .hidden) var now: Int?
    /// Benchmarks (`make bench`): runs the search this many times in one process, printing only the last run's
    /// output; with --timing, the median and 95th percentile of the runs (the cost once the process is warm,
    /// as in `serve`).
    @Option(help: .hidden) var repeats: Int = 1

    mutating func validate() throws {
        try resolveArchive()
        guard (limit ?? 1) >= 1 else { throw ValidationError("--limit must be at least 1") }
        guard offset >= 0 else { throw ValidationError("--offset cannot be negative") }
        guard context >= 0 else { throw ValidationError("--context cannot be negative") }
        guard !(all && offset > 0) else { throw ValidationError("--all reads every match; leave out --offset") }
        guard !(all && limit != nil) else { throw ValidationError("--all reads every match; leave out --limit") }
        guard !json || format == .table || format == .json else {
            throw ValidationError("--json is --format json; give one of them")
        }
        guard context == 0 || (format == .table && !json) else {
            throw ValidationError("--context goes with --format table")
        }
    }

    func run() async throws {
        let zone = try QueryInput.zone(tz)
        let text = try QueryInput.resolve(QueryInput.joined(query), queries: queries)
        let parsed = try QueryInput.parse(text, now: now, zone: zone)
        let store = try await ArchiveLocation.reader(archive)
        let clock = ContinuousClock()
        let format = json ? SearchFormat.json : format
        let runner = SearchRunner(
            archive: store, query: parsed, options: SearchOptions(limit: limit ?? 50, offset: offset, sort: sort),
            output: SearchOutput(
                format: format, query: parsed, color: isatty(STDOUT_FILENO) == 1, zone: tz == nil ? nil : zone),
            context: context, all: all, zone: zone)
        let mode: SearchRunner.Mode = explain ? .explain : count ? .count : .results
        var durations: [Duration] = []
        do {
            for run in 1...max(1, repeats) {
                let last = run == max(1, repeats)
                let started = clock.now
                try await runner.run(
                    mode: mode, write: { if last { print($0) } },
                    note: { if last { FileHandle.standardError.write(Data(($0 + "\n").utf8)) } })
                durations.append(started.duration(to: clock.now))
            }
            if explain { for line in QueryPushdown(parsed).explanation { print(line) } }
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: text)
        }
        if timing {
            func ms(_ duration: Duration) -> String {
                let value = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
                return String(format: "%.1f", value)
            }
            let sorted = durations.sorted()
            let line =
                sorted.count == 1
                ? "search: \(ms(sorted[0])) ms"
                : "search: \(ms(sorted[sorted.count / 2])) ms (p50 of \(sorted.count) runs in one process; p95 "
                    + "\(ms(sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.95))])) ms; first \(ms(durations[0])) ms)"
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }
}

extension SearchFormat: ExpressibleByArgument {}
extension SearchOptions.Sort: ExpressibleByArgument {
    /// `-date`, `date` or `rank`, and `newest`/`oldest`: a value starting with `-` must be attached
    /// (`--sort=-date`), which the words need not be.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "newest": self = .newest
        case "oldest": self = .oldest
        default: self.init(rawValue: argument.lowercased())
        }
    }

    public static var allValueStrings: [String] { ["newest", "oldest", "rank", "-date", "date"] }
}
