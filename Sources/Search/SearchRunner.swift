import Archive
import QueryLanguage

/// Runs one search against an archive and writes its output line by line.
public struct SearchRunner: Sendable {
    /// What to print.
    public enum Mode: Sendable {
        /// The matching messages (with context when asked).
        case results
        /// Only how many messages match.
        case count
        /// The SQL and its arguments, and the REST parameters that could be pushed down.
        case explain
    }

    public var archive: any ArchiveReader
    public var query: Query
    public var options: SearchOptions
    public var output: SearchOutput
    /// Messages shown before and after each hit (table output).
    public var context: Int

    public init(
        archive: any ArchiveReader, query: Query, options: SearchOptions, output: SearchOutput, context: Int = 0
    ) {
        self.archive = archive
        self.query = query
        self.options = options
        self.output = output
        self.context = context
    }

    /// Runs the search; `write` receives each line without its newline.
    ///
    /// - Throws: ``QueryError`` for a login no archived user has, or a database error.
    public func run(mode: Mode, write: (String) -> Void) async throws {
        switch mode {
        case .count:
            write(String(try await archive.count(query)))
        case .explain:
            let plan = try await archive.explain(query, options: options)
            write("SQL:")
            write("  " + plan.sql)
            write("arguments: " + plan.arguments.joined(separator: ", "))
            let pushdown = QueryPushdown(query)
            write("QuickBlox REST (what a targeted crawl could ask the server):")
            if !pushdown.dialogIDs.isEmpty { write("  dialogs: " + pushdown.dialogIDs.joined(separator: ", ")) }
            write("  GET /chat/Message.json?" + (pushdown.filters.isEmpty ? "(no filter)" : pushdown.queryString))
            let local = pushdown.residual.map { query.text(of: $0) }
            write("left to filter locally: " + (local.isEmpty ? "nothing" : local.joined(separator: " · ")))
        case .results:
            let hits = try await archive.search(query, options: options)
            if let header = output.header { write(header) }
            for hit in hits {
                guard context > 0 else {
                    write(output.line(hit))
                    continue
                }
                write("── \(hit.dialogName ?? "dialog \(hit.message.dialogID)") ──")
                for line in try await archive.context(of: hit.message.id, before: context, after: context) {
                    write(output.tableRow(line, marker: line.message.id == hit.message.id ? "> " : "  "))
                }
            }
            if output.format == .table {
                write(hits.isEmpty ? "no messages match" : "\(hits.count) messages (from \(options.offset + 1))")
            }
        }
    }
}

extension Query {
    /// The source text of a sub-expression (its terms' span), for explanations and error messages.
    public func text(of expression: QueryExpression) -> String {
        guard let range = expression.sourceRange else { return "\(expression)" }
        let characters = Array(source)
        guard range.lowerBound >= 0, range.upperBound <= characters.count else { return "\(expression)" }
        return String(characters[range])
    }
}

extension QueryExpression {
    /// The Character span of the expression in its source, from its first to its last term.
    var sourceRange: Range<Int>? {
        switch self {
        case .text(let term): return term.range
        case .predicate(let predicate): return predicate.range
        case .not(let child): return child.sourceRange
        case .and(let children), .or(let children):
            let ranges = children.compactMap(\.sourceRange)
            guard let low = ranges.map(\.lowerBound).min(), let high = ranges.map(\.upperBound).max() else {
                return nil
            }
            return low..<high
        }
    }
}
