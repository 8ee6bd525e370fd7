import ArgumentParser
import Foundation
import QuickBlox
import Search

/// `qbarchive queries`: the saved moderation queries, with their titles and purposes.
struct QueriesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queries",
        abstract: "List the saved queries (queries/NAME.qbq) that `qbarchive search @NAME` runs."
    )

    @Option(help: "Where saved queries live.") var queries = "queries"
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let saved: [SavedQuery]
        do {
            saved = try SavedQuery.all(in: queries)
        } catch .noDirectory(let path) {
            throw CommandFailure("no saved-query directory at \(path); pass --queries DIR", code: .usage)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        for query in saved {
            if json {
                var out: [UInt8] = []
                var object = JSONObjectWriter(into: &out)
                object.string("name", query.name, into: &out)
                object.string("owner", query.owner, into: &out)
                object.string("purpose", query.purpose, into: &out)
                object.string("query", query.query, into: &out)
                object.string("title", query.title, into: &out)
                object.finish(into: &out)
                print(String(decoding: out, as: UTF8.self))
            } else {
                print("@\(query.name) — \(TerminalText.neutralised(query.title ?? "(no title)"))")
                if let purpose = query.purpose { print("    \(TerminalText.neutralised(purpose))") }
                print("    \(TerminalText.neutralised(query.query))")
            }
        }
    }
}
