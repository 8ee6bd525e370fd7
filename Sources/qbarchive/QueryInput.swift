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
            throw CommandFailure("no saved-query directory at \(path); pass --queries DIR", code: .usage)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
    }

    /// The zone `--tz` names (UTC when not given); exit code 2 when it names none.
    static func zone(_ text: String?) throws -> TimeZone {
        guard let text else { return QueryDate.utc }
        guard let zone = QueryZone.named(text) else {
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
