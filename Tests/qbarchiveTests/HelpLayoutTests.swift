import Foundation
import Testing

/// Every `--help` reads as paragraphs at any terminal width: ArgumentParser wraps each line of a discussion to
/// the terminal (`COLUMNS`), so prose broken by hand in the source leaves a short line in the middle of a
/// paragraph on an 80-column terminal. Prose lines end with `\` in the source; examples and lists are indented.
@Suite("Help text wraps as paragraphs at any width (the built binary)")
struct HelpLayoutTests {
    @Test(arguments: [80, 100, 132])
    func noParagraphIsBrokenByHand(columns: Int) async throws {
        var problems: [String] = []
        var commands: [[String]] = [[]]
        var seen: Set<[String]> = []
        while let command = commands.popLast() {
            guard seen.insert(command).inserted else { continue }
            let run = try await CommandRunner.run(["help"] + command, environment: ["COLUMNS": "\(columns)"])
            #expect(run.status == 0, "qbarchive help \(command.joined(separator: " ")): \(run.stderr)")
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let name = (["qbarchive"] + command).joined(separator: " ")
            problems += Self.brokenLines(lines, columns: columns).map { "\(name): \($0)" }
            commands += Self.subcommands(in: lines).map { command + [$0] }
        }
        #expect(seen.count > 20, "the subcommands were not all found: \(seen)")
        #expect(
            problems.isEmpty, "lines broken before the width (\(columns) columns):\n\(problems.joined(separator: "\n"))"
        )
    }

    /// Pairs of unindented lines where the first ends though the next one's first word would have fitted:
    /// greedy wrapping never does that, a newline in the source does. A line starting `- ` is a list item.
    static func brokenLines(_ lines: [String], columns: Int) -> [String] {
        zip(lines, lines.dropFirst()).compactMap { line, next in
            guard let first = next.split(separator: " ").first, !line.isEmpty, !line.hasPrefix(" "),
                !next.hasPrefix(" "), !next.hasPrefix("- ")
            else { return nil }
            // ArgumentParser's chunks of `columns` characters end a line at the last space within them.
            return line.count + 1 + first.count < columns - 1 ? "\(line) ‖ \(next)" : nil
        }
    }

    /// The names listed under SUBCOMMANDS: (two spaces, the name; wrapped abstracts are indented further).
    static func subcommands(in lines: [String]) -> [String] {
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first,
                name != "help"
            else { return nil }
            return String(name)
        }
    }

    @Test func theCheckFindsAHandBrokenParagraph() {
        let broken = ["Then crawl it, search it, list the saved", "moderation queries and export it."]
        #expect(Self.brokenLines(broken, columns: 80).count == 1)
        let wrapped = [
            "Then crawl it (qbarchive crawl --help), search it (qbarchive search --help),",
            "list the saved moderation queries.", "- an item", "  an example",
        ]
        #expect(Self.brokenLines(wrapped, columns: 80).isEmpty)
        let listing = [
            "SUBCOMMANDS:", "  crawl                   Archive every dialog and message of a QuickBlox",
            "                          application.", "  hold (default)          Holds.", "", "  See 'qbarchive help'.",
        ]
        #expect(Self.subcommands(in: listing) == ["crawl", "hold"])
    }
}
