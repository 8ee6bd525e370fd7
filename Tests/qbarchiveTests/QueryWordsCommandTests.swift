import Foundation
import Testing

/// `qbarchive search` takes the query as several words too (`search from:user2 refund`), joined with spaces as
/// typed; a word whose space the shell's quotes kept (a phrase or an expression?) is refused with both spellings.
@Suite("qbarchive search with the query in several words (the built binary)")
struct QueryWordsCommandTests {
    /// Queries as the words a user types unquoted (a double-quoted phrase single-quoted for the shell, so one
    /// word); the query is the words joined with spaces.
    static let queries: [[String]] = [
        ["refund", "from:user2"], ["date", "in", "2025-12", "refund"],
        ["sender_id", "in", "(100002,", "100003)", "refund"], ["refund", #""money back""#],
        ["refund", "or", "invoice", "-has:link"], ["date", ">", "2000-01-01", "is:group"],
        ["ελλαδα", "or", "北京", "or", "🎉"], ["text", "ctn", #""efun""#, "not", "from:user1"],
        ["refund", #""say \"hi there\"""#], ["refund", "after:2025-01-01", "before:2026-06-01"],
    ]

    @Test func severalWordsAreTheQueryTheyJoinInto() async throws {
        try await SearchCommandTests.withArchive { archive, total in
            var matched = 0
            for words in Self.queries {
                let query = words.joined(separator: " ")
                let whole = try await CommandRunner.run(["search", "--archive", archive, "--count", query])
                let apart = try await CommandRunner.run(["search", "--archive", archive, "--count", "--"] + words)
                #expect(whole.status == 0 && apart.status == 0, "\(query): \(whole.stderr) \(apart.stderr)")
                #expect(whole.stdout == apart.stdout, "\(query)")
                if (Int(whole.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0 { matched += 1 }
                // The results themselves, not only their number: the same messages in the same order.
                let first = try await CommandRunner.run(["search", "--archive", archive, "--format", "jsonl", query])
                let second = try await CommandRunner.run(
                    ["search", "--archive", archive, "--format", "jsonl", "--"] + words)
                #expect(first.stdout == second.stdout, "\(query)")
            }
            // Most queries find something, so equal results say more than two empty answers would.
            #expect(matched >= Self.queries.count / 2 && total > 0, "\(matched) of the queries matched")
            // Options may sit between the words, and a word that begins with - goes after --.
            let mixed = try await CommandRunner.run(["search", "refund", "--archive", archive, "--count", "from:user2"])
            let one = try await CommandRunner.run(["search", "--archive", archive, "--count", "refund from:user2"])
            #expect(mixed.status == 0 && mixed.stdout == one.stdout, "\(mixed.stderr)")
        }
    }

    @Test(arguments: [
        (["money back", "refund"], #"'"money back" refund'"#, "'(money back) refund'"),
        (
            ["refund", "sender_id in (100002, 100003)"], #"'refund "sender_id in (100002, 100003)"'"#,
            "'refund (sender_id in (100002, 100003))'"
        ),
        (["from:user2", "see\tyou"], "'from:user2 \"see\tyou\"'", "'from:user2 (see\tyou)'"),
        (["\"a\" b", "c"], "'\"a\" b c'", "'(\"a\" b) c'"),
        // Joined bare, the group's `or` would take in the term before it.
        (["from:user1", "refund OR urgent"], #"'from:user1 "refund OR urgent"'"#, "'from:user1 (refund OR urgent)'"),
    ])
    func aWordTheShellGroupedIsRefusedWithBothSpellings(words: [String], phrase: String, terms: String)
        async throws
    {
        // The archive is never opened: the query is refused first (a missing archive would exit 10).
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-archive.sqlite").path
        let refused = try await CommandRunner.run(["search", "--archive", missing, "--"] + words)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("the query came as \(words.count) arguments"), "\(refused.stderr)")
        #expect(refused.stderr.contains("as a phrase: qbarchive search \(phrase)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("as separate terms: qbarchive search \(terms)"), "\(refused.stderr)")
    }

    /// `--tz "$TZ"` with TZ unset is a value left out, not a choice of UTC.
    @Test(arguments: ["", " "]) func anEmptyTimeZoneIsRefused(zone: String) async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-archive.sqlite").path
        let refused = try await CommandRunner.run(["search", "--archive", missing, "--tz", zone, "on:2024-03-01"])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("not a time zone"), "\(refused.stderr)")
    }

    @Test func aPhraseQuotedInsideAWordOrOneArgumentIsTaken() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-archive.sqlite").path
        for words in [[#""money back""#, "refund"], ["money back refund"], [#"from:"Alice Martin""#, "x"]] {
            let taken = try await CommandRunner.run(["search", "--archive", missing, "--"] + words)
            #expect(taken.status == 10, "\(words): \(taken.stderr)")  // on to the archive, which is missing
        }
    }

    @Test func aSavedQueryRunsAlone() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-archive.sqlite").path
        let refused = try await CommandRunner.run([
            "search", "--archive", missing, "--queries", SearchCommandTests.queries, "@links-in-private", "refund",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("`@links-in-private` runs a saved query, which takes no more words"))
        let none = try await CommandRunner.run(["search", "--archive", missing])
        #expect(none.status == 2 && none.stderr.contains("Missing expected argument"))
    }
}
