import Archive
import ArgumentParser
import Crawler
import Foundation
import QueryLanguage
import Search

/// `qbarchive search`: find messages in an archive with the moderation query language.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search an archive's messages with a query (or a saved @query).",
        discussion: """
            Words and "quoted phrases" search message text (case and accents ignored; refu* is a prefix). \
            Predicates mirror QuickBlox's filters: field op value, or the REST form field[op]=value.

              refund "money back"                    both, anywhere in the text
              message ctn "bit.ly"                   substring (QuickBlox's ctn), any characters
              from:alice dialog_type:private         sender by login or id; private dialogs
              sender_id[in]=34,45&message[ctn]=refund   copied from a QuickBlox request
              date in 2024-03 and not has:attachment     a whole month; negation
              date > 7d or edited = true             the last 7 days, or edited messages
              @links-in-private                      a saved query from queries/

            Fields: message, sender_id (from), recipient_id (to), dialog, dialog_type, dialog_name, date_sent \
            (date), updated_at, attachments.type, has:attachment, read_ids, occupants_ids, edited, deleted, \
            custom.KEY. See docs/query-language.md.

            Opens the archive read-only: safe while a crawl runs. Exit codes: 0 success (also when nothing \
            matches), 2 a malformed query or flag (the error points at the place), 10 archive missing or unreadable.
            """
    )

    @Option(help: "The archive file.") var archive: String
    @Argument(help: "The query, or @NAME for queries/NAME.qbq.") var query: String
    @Option(help: "table (default), jsonl or csv.") var format: SearchFormat = .table
    @Option(help: "At most this many results.") var limit = 50
    @Option(help: "Skip this many results first (paging).") var offset = 0
    @Option(help: "-date (newest first, default), date (oldest first) or rank (best match first).")
    var sort: SearchOptions.Sort = .newest
    @Option(help: "Show N messages before and after each hit, as a transcript (table format).") var context = 0
    @Flag(help: "Print only the number of matching messages.") var count = false
    @Flag(help: "Print the SQL, its arguments, and what could be pushed down to the QuickBlox API.") var explain = false
    @Flag(help: "Print how long the search took (after opening the archive) to standard error.") var timing = false
    @Option(help: "Where saved queries live.") var queries = "queries"
    @Option(help: .hidden) var now: Int?

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        guard offset >= 0 else { throw ValidationError("--offset cannot be negative") }
        guard context >= 0 else { throw ValidationError("--context cannot be negative") }
        guard context == 0 || format == .table else { throw ValidationError("--context goes with --format table") }
    }

    func run() async throws {
        let text = try QueryInput.resolve(query, queries: queries)
        let parsed = try QueryInput.parse(text, now: now)
        let store = try ArchiveLocation.reader(archive)
        let clock = ContinuousClock()
        let started = clock.now
        defer {
            if timing {
                let elapsed = started.duration(to: clock.now)
                let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                FileHandle.standardError.write(Data("search: \(String(format: "%.1f", ms)) ms\n".utf8))
            }
        }
        do {
            try await SearchRunner(
                archive: store, query: parsed,
                options: SearchOptions(limit: limit, offset: offset, sort: sort),
                output: SearchOutput(format: format, query: parsed, color: isatty(STDOUT_FILENO) == 1),
                context: context
            ).run(mode: explain ? .explain : count ? .count : .results, write: { print($0) })
            if explain { for line in QueryPushdown(parsed).explanation { print(line) } }
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: text)
        }
    }
}

extension SearchFormat: ExpressibleByArgument {}
extension SearchOptions.Sort: ExpressibleByArgument {}
