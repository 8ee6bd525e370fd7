import ArgumentParser
import Crawler
import Foundation
import QueryLanguage
import Search

/// The `--where` of `qbarchive crawl`: a query whose every term QuickBlox can filter.
struct TargetedCrawl {
    var text: String
    var pushdown: QueryPushdown

    /// Parses the query (or `@NAME`) and refuses, with exit code 2, any term the server cannot evaluate:
    /// a targeted crawl must never silently fetch more, or less, than the query says.
    init(query: String, queries: String) throws {
        text = try QueryInput.resolve(query, queries: queries)
        let parsed = try QueryInput.parse(text, now: nil)
        pushdown = QueryPushdown(parsed)
        guard pushdown.isComplete else {
            let terms = pushdown.residual.map { "`\(parsed.text(of: $0))`" }.joined(separator: ", ")
            throw CommandFailure(
                "--where: QuickBlox cannot filter \(terms); a targeted crawl takes message ctn/=/!=, sender_id, "
                    + "recipient_id = or in, date_sent, updated_at, attachments.type = and dialog joined by and. "
                    + "Crawl without --where, then use `qbarchive search` for the rest.",
                code: .usage)
        }
    }
}
