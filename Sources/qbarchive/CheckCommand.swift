import Archive
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive check`: the storage's own consistency checks, which need its code (the full-text indexes are
/// tokenized by qbarchive's rules, so other tools cannot check them).
struct CheckCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check that an archive's storage is sound: the database and its word and substring indexes.",
        discussion: """
            For a SQLite archive: PRAGMA integrity_check, then FTS5's integrity-check of the word and substring \
            indexes against the archived messages (the indexes use qbarchive's own tokenizers, so the sqlite3 \
            tool cannot run this part). For a PostgreSQL archive: every message's stored words and folded text \
            against what qbarchive derives from its text. Nothing is changed; a crawl may run meanwhile. After a \
            crash or a copy made while the archive was in use, run this before trusting searches.

            Exit codes: 0 sound, 10 the archive cannot be opened, 20 problems found (each printed).

            Examples:
              qbarchive check --archive chat.sqlite
              qbarchive check --archive chat.sqlite --json
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Flag(help: "Print the result as JSON (sound, problems).") var json = false

    func run() async throws {
        let store = try await ArchiveLocation.writer(archive)
        let problems = try await store.integrityProblems()
        if json {
            let object: JSONValue = [
                "sound": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string)),
            ]
            print(object.jsonString)
        } else if problems.isEmpty {
            print("sound: the database and its word and substring indexes agree with the archived messages")
        } else {
            for problem in problems { print("problem: \(problem)") }
        }
        if !problems.isEmpty { throw ExitCode(20) }
    }
}
