import Archive
import Foundation
import GRDB
import QuickBlox
import Testing

/// A query hold's relative dates are read from the moment it was placed (the built binary): read from now,
/// `date > 30d` let go of each message a month after the hold was placed, and `erase` destroyed it while
/// `hold list` still showed the hold in force.
@Suite("qbarchive hold: a query hold keeps what its relative dates covered when it was placed")
struct HoldRelativeDatesCommandTests {
    @Test(arguments: ["date > 30d", "after:30d", "(date >= 2w or date < 1990-01-01)"])
    func aHoldPlacedLongAgoStillKeepsWhatItCovered(query: String) async throws {
        try await SearchCommandTests.withArchive { archive, _ in
            let messages = try await HoldRetainCommandTests.messages(archive)
            let newest = try #require(messages.values.map(\.date).max())
            let add = try await CommandRunner.run(
                ["hold", "add", "--archive", archive, "--reason", "case 9", "--query", query, "--json"])
            #expect(add.status == 0, "\(add)")

            // As if the hold had been placed 60 days before the newest message, long before now.
            let placed = newest - 60 * 86_400
            try await DatabaseQueue(path: archive).write { db in
                try db.execute(sql: "UPDATE holds SET created_at = ?", arguments: [placed])
            }
            let covered = try await CommandRunner.run(
                ["search", "--archive", archive, "--count", "--now", "\(placed)", "--", query])
            let expected = try #require(Int(covered.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(expected > 0, "the archive has messages in the month before the hold was placed")

            let list = try await CommandRunner.run(["hold", "list", "--archive", archive, "--json"])
            let kept = try JSONValue(parsing: list.stdout).arrayValue?.first?["messages_kept"]
            #expect(kept?.lenientInt == expected, "\(list.stdout)")

            // A message it covered then, and not now: its erasure is refused, and nothing is changed.
            let export = try await CommandRunner.run(
                [
                    "export", "--archive", archive, "--format", "jsonl", "--out", "-", "--now", "\(placed)", "--where",
                    query,
                ])
            let first = try #require(export.stdout.split(separator: "\n").first)
            let id = try #require(try JSONValue(parsing: String(first))["id"]?.stringValue)
            let erase = try await CommandRunner.run(["erase", "--archive", archive, "--message", id])
            #expect(erase.status == 15 && erase.stderr.contains("legal hold #1"), "\(erase)")
            #expect(try await HoldRetainCommandTests.messages(archive)[id] != nil)
        }
    }
}
