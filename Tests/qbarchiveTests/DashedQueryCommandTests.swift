import Foundation
import Testing

/// A query or a value that begins with `-` (`-from:bot refund`, `--where -invoice`, `--limit -5`): the argument
/// parser reads it as options and reports a query or a value missing; qbarchive adds which argument it was and
/// how to write it (exit 2), and the written form is taken.
@Suite("qbarchive and arguments that begin with - (the built binary)")
struct DashedQueryCommandTests {
    static let archive = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-archive.sqlite").path

    @Test(arguments: ["-invoice", "-from:user2", "-\"see you\"", "-ελλάδα"])
    func aQueryThatBeginsWithADashGoesAfterTwo(query: String) async throws {
        let refused = try await CommandRunner.run(["search", "--archive", Self.archive, query])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "hint: `\(query)` begins with - and was read as an option. A query that begins with - goes after "
                    + "--: qbarchive search [options] -- '\(query)'."), "\(refused.stderr)")
        // Written so, the query is taken: the run goes on to the archive, which is missing (exit 10).
        let taken = try await CommandRunner.run(["search", "--archive", Self.archive, "--", query + " refund"])
        #expect(taken.status == 10, "\(taken.stderr)")
    }

    /// A word that begins with - among other words of the query: the hint's command keeps every word, in order,
    /// wherever the options sat, and written so it searches for what the words say.
    @Test(
        arguments: [
            (["refund", "-from:user2"], "refund '-from:user2'"),
            (["-from:user2", "--limit", "5", "refund", "card"], "'-from:user2' refund card"),
            (["--json", "invoice", "-refund", "--limit", "3", "-\"see you\""], "invoice '-refund' '-\"see you\"'"),
            (["refund", "-ελλάδα", "--", "after:2024-01-01"], "refund '-ελλάδα' after:2024-01-01"),
            (["it's", "-refund"], "'it'\\''s' '-refund'"),
        ] as [([String], String)])
    func aDashedWordAmongOthersKeepsThemAll(arguments: [String], words: String) async throws {
        let refused = try await CommandRunner.run(["search", "--archive", Self.archive] + arguments)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "A query word that begins with - goes after --, and the query's other words with it: qbarchive "
                    + "search [options] -- \(words)."), "\(refused.stderr)")
        // The hint's words, as a shell splits them, are the query's words in their order, and written after --
        // they are taken: the run goes on to the archive, which is missing (exit 10).
        let shellWords = try await Self.shellWords(words)
        #expect(shellWords == arguments.filter { !["--json", "--limit", "5", "3", "--"].contains($0) })
        let taken = try await CommandRunner.run(["search", "--archive", Self.archive, "--"] + shellWords)
        #expect(taken.status == 10, "\(taken.stderr)")
    }

    /// The arguments `/bin/sh` makes of `text`.
    static func shellWords(_ text: String) async throws -> [String] {
        try await CommandRunner.shell("printf '%s\\0' " + text).stdout.split(separator: "\0").map(String.init)
    }

    @Test(arguments: [
        ["search", "--limit", "-5", "x"], ["export", "--where", "-from:user2", "--out", "x.jsonl"],
        ["stats", "--where", "-invoice"],
    ])
    func aValueThatBeginsWithADashGoesAfterAnEqualsSign(arguments: [String]) async throws {
        let option = arguments[1]
        let value = arguments[2]
        let refused = try await CommandRunner.run(arguments + ["--archive", Self.archive])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "hint: `\(value)` begins with - and was read as an option, not as the value of \(option): "
                    + "write \(option)='\(value)'."), "\(refused.stderr)")
    }

    /// A stray query for a command that takes one only as the value of `--where`: the hint names that form, not
    /// `--`, which those commands would refuse as an unexpected argument.
    @Test(arguments: ["stats", "export", "crawl"])
    func aStrayQueryOfACommandWithWhereGoesAfterWhere(command: String) async throws {
        let refused = try await CommandRunner.run([command, "--archive", Self.archive, "-invoice"])
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains(
                "hint: `-invoice` begins with - and was read as an option. \(command) takes a query as the value of "
                    + "--where: write --where='-invoice'."), "\(refused.stderr)")
        let help = try await CommandRunner.run([command, "--help"])
        #expect(help.stdout.contains("--where <"), "\(command) --help lists --where")
    }

    /// Short options of one letter and misspelt long options get argument-parser's own message, no hint.
    @Test func optionsAreNotTakenForQueries() async throws {
        let misspelt = try await CommandRunner.run(["search", "--archive", Self.archive, "--limt", "5", "x"])
        #expect(misspelt.status == 2)
        #expect(misspelt.stderr.contains("Did you mean '--limit'?"))
        #expect(!misspelt.stderr.contains("hint:"))
    }
}
