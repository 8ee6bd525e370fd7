import ArgumentParser
import Foundation

extension QBArchive {
    /// A hint for a usage error when an argument begins with one `-` but reads as a query or a value, not an
    /// option: `qbarchive search '-from:bot refund'`, `--where -invoice`, `--limit -5`. argument-parser takes such
    /// an argument for options (`-invoice` for `-i -n -v …`) and then reports the query or the value missing,
    /// naming neither the argument nor the way out. `nil` when no argument before `--` looks so.
    ///
    /// qbarchive's only short options are single letters (`-o`), so one `-` followed by two characters or more,
    /// or by anything but a letter, is a query's negation (`-invoice`, `-"see you"`, `-from:bot`) or a number.
    ///
    /// - Parameter message: argument-parser's message: when it misses an option's value, the hint is that
    ///   option's `=` form (`--where=-invoice`); otherwise the query after `--` for `search`, whose query is an
    ///   argument, and the `--where=` form for the commands that take a query only as that option's value
    ///   (`qbarchive stats -invoice`).
    static func dashedQueryHint(
        message: String, _ arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) -> String? {
        let parsed = arguments.prefix { $0 != "--" }
        guard let command = arguments.first,
            let index = parsed.indices.dropFirst().first(where: { readsAsQuery(parsed[$0]) })
        else { return nil }
        let suspect = parsed[index]
        let previous = parsed[index - 1]
        if message.contains("Missing value for '\(previous)"), previous.hasPrefix("--") {
            return "hint: `\(suspect)` begins with - and was read as an option, not as the value of \(previous): "
                + "write \(previous)='\(suspect)'.\n"
        }
        if whereCommands.contains(command) {
            return "hint: `\(suspect)` begins with - and was read as an option. \(command) takes a query as the "
                + "value of --where: write --where='\(suspect)'.\n"
        }
        if command == "search", let words = searchWords(arguments), words.count > 1 {
            return "hint: `\(suspect)` begins with - and was read as an option. A query word that begins with - "
                + "goes after --, and the query's other words with it: qbarchive search [options] -- "
                + words.joined(separator: " ") + ".\n"
        }
        return "hint: `\(suspect)` begins with - and was read as an option. A query that begins with - goes "
            + "after --: qbarchive \(command) [options] -- \(quoted(suspect)).\n"
    }

    /// The words of a `search` query in the order given, shell-quoted, when the arguments hold words that begin
    /// with `-` beside others (`search refund -from:bot`): the words that read as a query's (``readsAsQuery(_:)``)
    /// and those `search` takes as its query once they are left out. A hint must not name a command that drops
    /// one (`-- '-from:bot'` alone would search for everything not from bot). `nil` when the rest does not parse.
    static func searchWords(_ arguments: [String]) -> [String]? {
        let parsed = Array(arguments.dropFirst().prefix { $0 != "--" })
        let rest = Array(arguments.dropFirst().drop { $0 != "--" }.dropFirst())
        let dashed = Set(parsed.filter(readsAsQuery))
        guard let command = try? SearchCommand.parse(parsed.filter { !dashed.contains($0) } + ["--"] + rest) else {
            return nil
        }
        // The words before `--` come first, in their order among the options; those after it last.
        var others = command.query.dropLast(rest.count)
        var words: [String] = []
        for argument in parsed {
            if dashed.contains(argument) {
                words.append(quoted(argument))
            } else if others.first == argument {
                words.append(quoted(argument, always: false))
                others = others.dropFirst()
            }
        }
        return words + rest.map { quoted($0, always: false) }
    }

    /// `word` in single quotes for a POSIX shell (a quote inside as `'\''`); with `always` false, as it is when
    /// it holds only letters, digits and `@%+=:,./_-`.
    static func quoted(_ word: String, always: Bool = true) -> String {
        let plain = word.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || "0123456789@%+=:,./_-".unicodeScalars.contains($0)
        }
        if !always, plain, !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The commands that take a query only as the value of `--where` (`search` takes it as its argument).
    static let whereCommands: Set = ["stats", "export", "crawl"]

    static func readsAsQuery(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), !argument.hasPrefix("--") else { return false }
        let rest = argument.dropFirst()
        guard let first = rest.first else { return false }
        return rest.count > 1 || !first.isLetter
    }
}
