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
        /// The SQL and its arguments (the command adds what a targeted crawl could push down).
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
