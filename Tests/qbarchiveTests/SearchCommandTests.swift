import Foundation
import QuickBlox
import Testing

@Suite("qbarchive search and queries (the built binary)")
struct SearchCommandTests {
    /// The repository's saved queries.
    static let queries = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("queries").path

    /// Crawls the test emulator into an archive with the built binary, then runs `body` with the archive's path.
    static func withArchive(_ body: @Sendable (String, Int) async throws -> Void) async throws {
        try await CrawlCommandTests.run { emulator, environment, directory in
            let archive = directory.appendingPathComponent("search.sqlite").path
            let crawl = try await CommandRunner.run(
                ["crawl", "--archive", archive, "--quiet"], environment: environment)
            #expect(crawl.status == 0, "\(crawl.stderr)")
            let visible = try await CrawlCommandTests.visibleTruth(emulator)
            try await body(archive, visible.count)
        }
    }

    @Test func searchesCountsExplainsAndRefusesBadQueries() async throws {
        try await Self.withArchive { archive, total in
            let count = try await CommandRunner.run(["search", "--archive", archive, "--count", "date > 2000-01-01"])
            #expect(count.status == 0)
            #expect(count.stdout == "\(total)\n")

            let jsonl = try await CommandRunner.run([
                "search", "--archive", archive, "--format", "jsonl", "--limit", "5", "from:user2",
            ])
            #expect(jsonl.status == 0, "\(jsonl.stderr)")
            let lines = jsonl.stdout.split(separator: "\n")
            #expect(lines.count == 5)
            for line in lines {
                let object = try JSONValue(parsing: String(line))
                #expect(object["sender_login"] == "user2")
                #expect(object["sender_id"] == 100_002)
            }

            let csv = try await CommandRunner.run([
                "search", "--archive", archive, "--format", "csv", "--limit", "3", "has:attachment",
            ])
            #expect(csv.status == 0)
            #expect(csv.stdout.hasPrefix("id,date_sent,date,dialog_id,dialog_name,dialog_type,sender_id,"))

            let explain = try await CommandRunner.run([
                "search", "--archive", archive, "--explain", "refund from:user1",
            ])
            #expect(explain.status == 0)
            #expect(explain.stdout.contains("message_words MATCH ?"))
            // SQLite's own plan of that statement: the word index, then the messages by key.
            #expect(explain.stdout.contains("plan (the storage engine's, for these arguments):\n  "))
            #expect(explain.stdout.contains("SCAN message_words VIRTUAL TABLE INDEX"), "\(explain.stdout)")
            #expect(explain.stdout.contains("'\"refund\"'"))
            #expect(explain.stdout.contains("GET /chat/Message.json?(no filter)"))
            #expect(explain.stdout.contains("left to filter locally: refund · from:user1"))
            let pushed = try await CommandRunner.run([
                "search", "--archive", archive, "--explain", "sender_id[in]=100002,100003&message[ctn]=refund now",
            ])
            #expect(
                pushed.stdout.contains(
                    "GET /chat/Message.json?sender_id%5Bin%5D=100002%2C100003&message%5Bctn%5D=refund"))
            #expect(pushed.stdout.contains("left to filter locally: now"))

            let bad = try await CommandRunner.run(["search", "--archive", archive, "sendr_id = 5"])
            #expect(bad.status == 2)
            #expect(bad.stdout.isEmpty)
            #expect(bad.stderr.contains("sendr_id = 5\n^"))
            #expect(bad.stderr.contains("did you mean `sender_id`?"))

            // The orders as --help writes them: words, and the dashed value attached.
            var orders: [String: [String]] = [:]
            for sort in ["newest", "--sort=-date", "oldest", "date", "Oldest"] {
                let option = sort.hasPrefix("--") ? [sort] : ["--sort", sort]
                let run = try await CommandRunner.run(
                    ["search", "--archive", archive, "--format", "jsonl", "--limit", "4"] + option + ["from:user2"])
                #expect(run.status == 0, "\(sort): \(run.stderr)")
                orders[sort] = run.stdout.split(separator: "\n").map(String.init)
            }
            #expect(orders["newest"] == orders["--sort=-date"] && orders["oldest"] == orders["date"])
            #expect(orders["oldest"] == orders["Oldest"] && orders["oldest"] != orders["newest"])

            let unknownLogin = try await CommandRunner.run(["search", "--archive", archive, "from:nobody"])
            #expect(unknownLogin.status == 2)
            #expect(unknownLogin.stderr.contains("no archived user has the login or name `nobody`"))
        }
    }

    @Test func savedQueriesRunAndAreListed() async throws {
        let listed = try await CommandRunner.run(["queries", "--queries", Self.queries])
        #expect(listed.status == 0)
        for name in [
            "attachments-in-public", "contact-details", "deleted-and-edited", "harassment-terms", "links-in-private",
            "payment-scams",
        ] {
            #expect(listed.stdout.contains("@\(name) — "), "\(name) missing from\n\(listed.stdout)")
        }
        try await Self.withArchive { archive, _ in
            // Every shipped review parses and runs against a real archive.
            for line in listed.stdout.split(separator: "\n") where line.hasPrefix("@") {
                let name = String(line.split(separator: " ")[0])
                let result = try await CommandRunner.run([
                    "search", "--archive", archive, "--queries", Self.queries, "--count", name,
                ])
                #expect(result.status == 0, "\(name): \(result.stderr)")
                #expect(Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) != nil)
            }
            let unknown = try await CommandRunner.run([
                "search", "--archive", archive, "--queries", Self.queries, "@no-such-review",
            ])
            #expect(unknown.status == 2)
            #expect(unknown.stderr.contains("no saved query `@no-such-review`"))
            #expect(
                unknown.stderr.contains("to search for the text @no-such-review, put it in quotes: \"@no-such-review\"")
            )
        }
    }

    @Test func aMissingArchiveExits10() async throws {
        let result = try await CommandRunner.run(["search", "--archive", "/nonexistent/a.sqlite", "refund"])
        #expect(result.status == 10)
        #expect(result.stderr.contains("--archive /nonexistent/a.sqlite: the directory /nonexistent does not exist"))
        let missing = NSTemporaryDirectory() + "/no-such-archive.sqlite"
        let inTemp = try await CommandRunner.run(["search", "--archive", missing, "refund"])
        #expect(inTemp.status == 10 && inTemp.stderr.contains("No archive at \(missing)"), "\(inTemp)")
    }

    @Test func crawlWhereRefusesWhatQuickBloxCannotFilter() async throws {
        let result = try await CommandRunner.run([
            "crawl", "--archive", "/nonexistent/a.sqlite", "--where", "refund sender_id = 4 or from:bob",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("QuickBlox cannot filter `refund sender_id = 4 or from:bob`"))
        let bad = try await CommandRunner.run(["crawl", "--archive", "/nonexistent/a.sqlite", "--where", "sender_id ="])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("`=` needs a value after it"))
        let both = try await CommandRunner.run([
            "crawl", "--archive", "/nonexistent/a.sqlite", "--reconcile", "--where", "sender_id = 4",
        ])
        #expect(both.status == 2)
        #expect(both.stderr.contains("cannot be combined with --where"))
    }
}
