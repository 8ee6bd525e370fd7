import Archive
import Foundation
import QueryLanguage
import QuickBlox

/// Runs one search against an archive and writes its output line by line.
///
/// Results go to `write` (standard output); what a person needs to read them goes to `note` (standard error):
/// how many matched in all and how many are shown, and, when nothing matches, how the query was understood —
/// so "no results" is never silent about what was searched for.
public struct SearchRunner: Sendable {
    /// What to print.
    public enum Mode: Sendable {
        /// The matching messages (with context when asked).
        case results
        /// Only how many messages match.
        case count
        /// How the query was understood, the SQL and its arguments (the command adds what a targeted crawl could
        /// push down).
        case explain
    }

    public var archive: any ArchiveReader
    public var query: Query
    public var options: SearchOptions
    public var output: SearchOutput
    /// Messages shown before and after each hit (table output).
    public var context: Int
    /// Every match, read page by page, instead of `options.limit` of them.
    public var all: Bool
    /// The zone dates of the query were read in, and the summary writes them in.
    public var zone: TimeZone

    /// Results of a page of `--all`.
    static let pageSize = 1_000

    public init(
        archive: any ArchiveReader, query: Query, options: SearchOptions, output: SearchOutput, context: Int = 0,
        all: Bool = false, zone: TimeZone = QueryDate.utc
    ) {
        self.archive = archive
        self.query = query
        self.options = options
        self.output = output
        self.context = context
        self.all = all
        self.zone = zone
    }

    /// Runs the search; `write` receives each line of the results without its newline, `note` each line for
    /// the person reading them.
    ///
    /// - Throws: ``QueryLanguage/QueryError`` for a name the archive does not have, or a database error.
    public func run(mode: Mode, write: (String) -> Void, note: (String) -> Void = { _ in }) async throws {
        switch mode {
        case .count:
            let total = try await archive.count(query)
            let summary = try await archive.describe(query, zone: zone)
            if output.format == .json {
                write(Self.object(["total": .int(total), "understood_as": .string(summary)]))
            } else {
                write(String(total))
            }
            if total == 0 { note(Self.nothingLine(summary, query)) }
        case .explain:
            let plan = try await archive.explain(query, options: options, zone: zone)
            write("understood as: " + plan.summary)
            write("SQL:")
            write("  " + plan.sql)
            write("arguments: " + plan.arguments.joined(separator: ", "))
            write("plan (the storage engine's, for these arguments):")
            for step in plan.steps { write("  " + step) }
        case .results:
            try await results(write: write, note: note)
        }
    }

    private func results(write: (String) -> Void, note: (String) -> Void) async throws {
        let first = try await archive.searchPage(
            query, options: all ? SearchOptions(limit: Self.pageSize, sort: options.sort) : options, zone: zone)
        let total = first.total
        let summary = first.summary
        if output.format == .json {
            write("{\"hits\":[")
        } else if let header = output.header {
            write(header)
        }
        var shown = 0
        var pending: String?
        for try await page in pages(after: first.hits) {
            for hit in page {
                shown += 1
                guard output.format != .json else {
                    if let line = pending { write(line + ",") }
                    pending = output.jsonLine(hit)
                    continue
                }
                guard context > 0 else {
                    write(output.line(hit))
                    continue
                }
                write("── \(hit.dialogName ?? "dialog \(hit.message.dialogID)") ──")
                for line in try await archive.context(of: hit.message.id, before: context, after: context) {
                    write(output.tableRow(line, marker: line.message.id == hit.message.id ? "> " : "  "))
                }
            }
        }
        if output.format == .json {
            if let line = pending { write(line) }
            var tail: [String: JSONValue] = [
                "limit": all ? .null : .int(options.limit), "offset": .int(all ? 0 : options.offset),
                "query": .string(query.source), "shown": .int(shown), "sort": .string(options.sort.rawValue),
                "total": .int(total), "understood_as": .string(summary),
            ]
            if let zone = output.zone { tail["tz"] = .string(QueryZone.name(zone)) }
            write("]," + String(Self.object(tail).dropFirst()))
        }
        if total == 0 {
            note(Self.nothingLine(summary, query))
        } else if output.format == .table {
            note(Self.shownLine(shown: shown, total: total, offset: all ? 0 : options.offset, zone: output.zone))
        }
    }

    /// The pages of results: `first`, then with `all` every further match, page by page — after the last result
    /// of the page before in the date orders, by offset in rank order.
    private func pages(after first: [SearchHit]) -> AsyncThrowingStream<[SearchHit], any Error> {
        let archive = archive
        let query = query
        let sort = options.sort
        let all = all
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    continuation.yield(first)
                    var hits = first
                    var page = SearchOptions(limit: Self.pageSize, offset: 0, sort: sort)
                    while all, hits.count == Self.pageSize, let last = hits.last {
                        if sort == .rank {
                            page.offset += hits.count
                        } else {
                            page.after = SearchCursor(dateSent: last.message.dateSent, messageID: last.message.id)
                        }
                        hits = try await archive.search(query, options: page)
                        continuation.yield(hits)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// "no messages match — understood as: …", with a suggestion for each filter word written without its colon.
    public static func nothingLine(_ summary: String, _ query: Query) -> String {
        (["no messages match — understood as: \(summary)"] + query.ambiguities.map(\.suggestion)).joined(
            separator: "; ")
    }

    /// "showing 1–50 of 1,234 matching messages — --limit, --offset or --all for more".
    public static func shownLine(shown: Int, total: Int, offset: Int, zone: TimeZone? = nil) -> String {
        let times = zone.map { ", times in \(QueryZone.name($0))" } ?? ""
        let noun = total == 1 ? "matching message" : "matching messages"
        if shown == 0 {
            return
                "showing none of \(NumberText.grouped(total)) \(noun): --offset \(NumberText.grouped(offset)) is past the last\(times)"
        }
        if shown == total { return "showing all \(NumberText.grouped(total)) \(noun)\(times)" }
        let range = "\(NumberText.grouped(offset + 1))–\(NumberText.grouped(offset + shown))"
        let more = offset + shown < total ? " — --limit, --offset or --all for more" : ""
        return "showing \(range) of \(NumberText.grouped(total)) \(noun)\(times)\(more)"
    }

    private static func object(_ members: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(members).serialized(), as: UTF8.self)
    }
}
