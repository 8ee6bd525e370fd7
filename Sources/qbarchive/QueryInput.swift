import Archive
import ArgumentParser
import Foundation
import QueryLanguage
import Search

/// Parses a query from the command line, turning a ``QueryError`` into exit code 2 with a caret.
enum QueryInput {
    static func parse(_ text: String, now: Int?, zone: TimeZone = QueryDate.utc) throws -> Query {
        do {
            return try QueryParser(now: now ?? ArchiveTime.now(), zone: zone).parse(text)
        } catch {
            throw failure(error, query: text)
        }
    }

    /// The query `text` stands for: a saved query's text for `@NAME`, otherwise `text`; exit code 2 when
    /// `@NAME` is not a valid name or not a saved query in `queries`.
    static func resolve(_ text: String, queries: String) throws -> String {
        do {
            return try SavedQuery.resolve(text, in: queries)
        } catch .noDirectory(let path) {
            throw CommandFailure(
                "no saved-query directory at \(path) for `\(text)`: pass --queries DIR; to search for the text "
                    + "\(text), quote it: '\"\(text)\"'", code: .usage)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
    }

    /// One query from the words of the command line: `qbarchive search from:alice refund` is
    /// `qbarchive search 'from:alice refund'`, the words joined with spaces as they were typed. Exit code 2 when
    /// joining could change what was meant: a word holding a space outside a quoted phrase (the shell's quotes
    /// grouped it — `"money back" refund` reaches us as `money back` and `refund`, and joined would search
    /// the words apart), or a saved query followed by more words.
    static func joined(_ words: [String]) throws -> String {
        guard words.count > 1 else { return words.first ?? "" }
        if let first = words.first, first.hasPrefix("@") {
            throw CommandFailure(
                "`\(first)` runs a saved query, which takes no more words (\(words.count - 1) followed it): run it alone, "
                    + "or write the whole query as one argument", code: .usage)
        }
        if let grouped = words.first(where: holdsUnquotedSpace) {
            // Both readings, spelt out: the group as a phrase (quoted where it has no quote of its own), or
            // its words as terms of the query, in parentheses so that they stay one group: `refund OR urgent`
            // after `from:alice` joined bare would be read `(from:alice refund) OR urgent`.
            let phrases = words.map { holdsUnquotedSpace($0) && !$0.contains("\"") ? "\"\($0)\"" : $0 }
            let terms = words.map { holdsUnquotedSpace($0) ? "(\($0))" : $0 }
            throw CommandFailure(
                "the query came as \(words.count) arguments, and `\(grouped)` holds a space the shell's quotes kept "
                    + "together, which joining them would lose. Write the whole query as one argument — as a phrase: "
                    + "qbarchive search '\(phrases.joined(separator: " "))'; as separate terms: "
                    + "qbarchive search '\(terms.joined(separator: " "))'", code: .usage)
        }
        return words.joined(separator: " ")
    }

    /// Whether `word` holds white space outside the query language's double-quoted phrases (`\"` inside one is
    /// a quote, not its end).
    static func holdsUnquotedSpace(_ word: String) -> Bool {
        var quoted = false
        var escaped = false
        for character in word {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && character.isWhitespace {
                return true
            }
        }
        return false
    }

    /// The zone `--tz` names (UTC when not given); exit code 2 when it names none.
    static func zone(_ text: String?) throws -> TimeZone {
        guard let text else { return QueryDate.utc }
        // An empty --tz is a value left out by mistake (`--tz "$TZ"` with TZ unset), not a choice of UTC.
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty, let zone = QueryZone.named(text) else {
            throw CommandFailure("--tz \(text): not a time zone — \(QueryZone.hint)", code: .usage)
        }
        return zone
    }

    /// The query, a caret under the bad part, and what to do: exit code 2, never an empty result.
    static func failure(_ error: QueryError, query: String) -> CommandFailure {
        CommandFailure("invalid query:\n" + error.rendered(query: query), code: .usage)
    }
}

/// An error already explained to the user: its message goes to standard error, then the exit code.
struct CommandFailure: Error, CustomStringConvertible {
    var message: String
    var code: ExitCode

    init(_ message: String, code: ExitCode) {
        self.message = message
        self.code = code
    }

    var description: String { message }
}
