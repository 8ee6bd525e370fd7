import QueryLanguage
import QuickBlox

/// What a fuzz run found.
struct FuzzFigures {
    var parsed = 0
    var rejected = 0
    var unpositioned = 0
    var ran = 0
    var refusedByArchive = 0
    var archiveErrors = 0
    var messages: Set<String> = []
    var examples: [String] = []
    var slowest: Duration = .zero
    var parseSeconds: Duration = .zero
    var archiveSeconds: Duration = .zero

    /// What is wrong with a rejection of `input`, or `nil` when it is positioned inside the input (or just
    /// past its end), says something, and renders as the three lines of a caret display.
    static func problem(with error: QueryError, input: String) -> String? {
        let length = input.count
        let lines = error.rendered(query: input).split(separator: "\n", omittingEmptySubsequences: false)
        guard (0...length).contains(error.position), error.length >= 0, error.position + error.length <= length + 1,
            !error.message.isEmpty, lines.count == 3
        else { return "\(input.debugDescription): \(error)" }
        return nil
    }

    func json(count: Int, seed: UInt64) -> String {
        func seconds(_ duration: Duration) -> JSONValue {
            .double(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        let object: JSONValue = [
            "inputs": .int(count), "seed": .int(Int(seed)), "parsed": .int(parsed), "rejected": .int(rejected),
            "unpositioned": .int(unpositioned), "distinct_messages": .int(messages.count),
            "slowest_parse_ms": .double(
                Double(slowest.components.seconds) * 1000 + Double(slowest.components.attoseconds) / 1e15),
            "parse_seconds": seconds(parseSeconds), "archive_queries": .int(ran + refusedByArchive + archiveErrors),
            "archive_ran": .int(ran), "archive_refused": .int(refusedByArchive), "archive_errors": .int(archiveErrors),
            "archive_seconds": seconds(archiveSeconds), "examples": .array(examples.map(JSONValue.string)),
        ]
        return object.jsonString
    }
}
