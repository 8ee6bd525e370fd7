import ArchiveTestSupport
import Foundation
import Testing

/// `--archive postgresql://…` through the built binary: a crawl of the emulator into PostgreSQL holds what the
/// same crawl into SQLite holds, and search, stats, status and export answer alike; bad URLs and an empty
/// database are refused with their exit codes (crawls at once: ``CrawlWorkersCommandTests``).
@Suite("qbarchive on a PostgreSQL archive (the built binary)", .enabled(if: PostgresCluster.isEnabled))
struct PostgresCommandTests {
    @Test("A crawl into PostgreSQL archives what a crawl into SQLite does; search, stats and export agree")
    func postgresAnswersAsSQLite() async throws {
        try await CrawlCommandTests.run { _, environment, directory in
            let sqlite = directory.appendingPathComponent("a.sqlite").path
            let postgres = try await PostgresCluster.processWideDatabase()
            for archive in [sqlite, postgres] {
                let crawl = try await CommandRunner.run(["crawl", "--archive", archive], environment: environment)
                #expect(crawl.status == 0, "\(archive): \(crawl.stderr)")
            }
            let queries = [
                "meeting", "\"see you\"", "message ctn \"ing\"", "from:user2", "has:attachment", "-meeting",
                "is:edited",
                "in:group OR is:deleted", "mee*", "date_sent>2020-01-01", "e",
            ]
            for query in queries {
                let answers = try await [sqlite, postgres].asyncMap { archive in
                    try await CommandRunner.run(
                        ["search", "--archive", archive, query, "--format", "jsonl", "--all", "--sort", "date"])
                }
                #expect(answers[0].status == answers[1].status, "\(query): \(answers[1].stderr)")
                #expect(try Self.ids(answers[0].stdout) == Self.ids(answers[1].stdout), "\(query)")
            }
            let counts = try await [sqlite, postgres].asyncMap { archive in
                try await CommandRunner.run(["search", "--archive", archive, "meeting OR is:deleted", "--count"])
            }
            #expect(counts[0].stdout == counts[1].stdout && counts[0].status == 0)
            let stats = try await [sqlite, postgres].asyncMap { archive in
                try await CommandRunner.run(["stats", "--archive", archive, "--json"])
            }
            #expect(stats[0].status == 0 && stats[1].status == 0, "\(stats[1].stderr)")
            #expect(try Self.withoutTimes(stats[0].stdout) == Self.withoutTimes(stats[1].stdout))
            var exports: [[JSONObject]] = []
            for (index, archive) in [sqlite, postgres].enumerated() {
                let out = directory.appendingPathComponent("export-\(index).jsonl").path
                let export = try await CommandRunner.run(
                    ["export", "--archive", archive, "--format", "jsonl", "--raw", "--out", out])
                #expect(export.status == 0, "\(export.stderr)")
                exports.append(
                    try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").map {
                        try Self.withoutTimes(String($0))
                    })
            }
            #expect(exports[0].count > 100)
            #expect(exports[0] == exports[1])
            let status = try await CommandRunner.run(["status", "--archive", postgres])
            #expect(status.status == 0, "\(status.stderr)")
            // --explain shows PostgreSQL's own plan of the statement, with its arguments bound.
            let explain = try await CommandRunner.run(["search", "--archive", postgres, "meeting", "--explain"])
            #expect(explain.status == 0, "\(explain.stderr)")
            #expect(explain.stdout.contains("plan (the storage engine's, for these arguments):\n  "))
            #expect(explain.stdout.contains("words @@"), "\(explain.stdout)")
            #expect(explain.stdout.contains("cost="), "\(explain.stdout)")
        }
    }

    @Test("Bad URLs exit 2 saying what is wrong; a database without an archive is exit 10 and stays empty")
    func refusals() async throws {
        let unknown = try await CommandRunner.run(["search", "--archive", "mysql://u@h/db", "x"])
        #expect(unknown.status == 2 && unknown.stderr.contains("postgresql://"))
        let badPort = try await CommandRunner.run(["search", "--archive", "postgresql://u@h:99999/db", "x"])
        #expect(badPort.status == 2 && badPort.stderr.contains("port"), "\(badPort.stderr)")
        let secret = try await CommandRunner.run(["search", "--archive", "postgresql://u:s3cret@h/db?bogus=1", "x"])
        #expect(secret.status == 2 && !secret.stderr.contains("s3cret"), "\(secret.stderr)")
        let empty = try await PostgresCluster.processWideDatabase()
        for arguments in [["search", "--archive", empty, "x"], ["stats", "--archive", empty]] {
            let result = try await CommandRunner.run(arguments)
            #expect(result.status == 10, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("No archive"), "\(result.stderr)")
        }
        // Nothing was made in it: a crawl may still make the archive there.
        let after = try await CommandRunner.run(["status", "--archive", empty])
        #expect(after.status == 10)
    }

    typealias JSONObject = [String: AnyHashable]

    /// The message ids of a JSON Lines search output, in order.
    static func ids(_ output: String) throws -> [String] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["id"] as? String ?? ""
        }
    }

    /// A JSON document without the members that hold the time of observation (which differ between two crawls)
    /// or where the archive is.
    static func withoutTimes(_ text: String) throws -> JSONObject {
        func clean(_ value: Any) -> AnyHashable {
            if let object = value as? [String: Any] {
                var result: JSONObject = [:]
                for (key, member) in object
                where !key.contains("seen") && !key.contains("observed") && !key.contains("superseded")
                    && key != "archive" && !key.contains("generated")
                {
                    result[key] = clean(member)
                }
                return result
            }
            if let array = value as? [Any] { return array.map(clean) }
            return (value as? AnyHashable) ?? AnyHashable("\(value)")
        }
        return clean(try JSONSerialization.jsonObject(with: Data(text.utf8))) as? JSONObject ?? [:]
    }
}

extension Array where Element: Sendable {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
