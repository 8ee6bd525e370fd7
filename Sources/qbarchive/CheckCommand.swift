import Archive
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive check`: the storage's own consistency checks, which need its code (the full-text indexes are
/// tokenized by qbarchive's rules, so other tools cannot check them).
struct CheckCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract:
            "Check that an archive's storage is sound: the database, its word and substring indexes, its statistics.",
        discussion: """
            For a SQLite archive: PRAGMA integrity_check, then FTS5's integrity-check of the word and substring \
            indexes against the archived messages (the indexes use qbarchive's own tokenizers, so the sqlite3 \
            tool cannot run this part). For a PostgreSQL archive: every message's stored words and folded text \
            against what qbarchive derives from its text. Then, on both, the statistics roll-ups (what \
            `qbarchive stats` and the dashboard read) against the same figures read from every message; when they \
            differ, `qbarchive stats --rebuild` recomputes them. Nothing is changed; a crawl may run meanwhile. \
            After a crash or a copy made while the archive was in use, run this before trusting searches.

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
        var problems = try await store.integrityProblems()
        let statistics = try await store.statisticsRollupDisagreements()
        if !statistics.isEmpty {
            problems.append(
                "the statistics roll-ups disagree with the archived messages (\(statistics.joined(separator: ", "))): "
                    + "qbarchive stats and the dashboard show wrong figures until `qbarchive stats --rebuild` "
                    + "recomputes them")
        }
        if json {
            let object: JSONValue = [
                "sound": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string)),
            ]
            print(object.jsonString)
        } else if problems.isEmpty {
            print(
                "sound: the database, its word and substring indexes and its statistics roll-ups agree with the "
                    + "archived messages")
        } else {
            for problem in problems { print("problem: \(problem)") }
        }
        if !problems.isEmpty { throw ExitCode(20) }
    }
}
