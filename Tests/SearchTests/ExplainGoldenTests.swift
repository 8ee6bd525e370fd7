import ArchiveSQLite
import ArchiveTestSupport
import Crawler
import Foundation
import QueryLanguage
import Search
import Testing

/// `search --explain` prints the same SQL, byte for byte, for every saved query in `queries/` and for
/// queries that use every field and operator, under each sort order and both plans (a walk of the date
/// index and a fetch of the hits): the archive seam must not change a single statement.
///
/// `Golden/explain.txt` was recorded before the seam was cut; `QB_RECORD_EXPLAIN=1 swift test --filter
/// ExplainGoldenTests` rewrites it, on purpose only.
@Suite("search --explain: the same SQL for every saved query and every field")
struct ExplainGoldenTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/explain.txt")

    /// Queries beyond the saved ones: every field, every operator, every shape the compiler treats apart.
    static let more = [
        "refund", "refund money", "refund or money", "refund -money", "\"money back\"", "refu*", "not refund",
        "message ctn \"bit.ly\"", "message ctn \"ok\"", "message = \"hello world\"", "message != \"x\"",
        "from:user1", "from:2", "sender_id in (1, 2, 3)", "sender_id nin (1, 2)", "to:3", "recipient_id != 2",
        "dialog = 000000000000000000000d00", "dialog_type:private", "dialog_type in (group, public)",
        "dialog_name ctn café", "dialog_name = \"Room 1 café\"", "date > 2024-02-01", "date in 2024-03",
        "date <= 2024-03-05", "date != 2024-03", "updated_at >= 2024-03-01T10:00:00Z", "attachments.type = image",
        "attachments.type != audio", "attachments.type in (image, video)", "has:attachment", "not has:attachment",
        "read_ids all (1, 2)", "read_ids = 3", "read_ids nin (4)", "occupants_ids = 3", "edited = true",
        "deleted = true", "edited = false and deleted = false", "custom.priority = 3", "custom.priority > 2",
        "custom.label = urgent", "custom.label != Later", "custom.label ctn urg", "custom.priority in (1, 2)",
        "(refund or money) and (from:user1 or dialog_type:group) and not message ctn \"scam\"",
        "sender_id[in]=1,2&message[ctn]=refund", "date_sent[gt]=1709251200&date_sent[lt]=1709856000",
        "refund date > 7d", "message ctn \"e-mail\" or message ctn \"x@y\"", "refund -\"money back\" -scam",
        "(refund and money) or (scam and pay)", "refund and not (money or back)",
    ]

    static let sorts: [(SearchOptions.Sort, Int, Int)] = [
        (.newest, 50, 0), (.oldest, 10, 0), (.rank, 50, 0), (.newest, 500, 200),
    ]

    @Test func explainOutputIsByteIdentical() async throws {
        let corpus = try await SearchCorpus.make(seed: 4242, count: 2000)
        defer { corpus.remove() }
        let saved = try SavedQuery.all(in: Self.repository.appendingPathComponent("queries").path)
        #expect(saved.count >= 6)
        var lines: [String] = []
        let now = SearchCorpus.baseTime + 86_400
        for (name, text) in saved.map({ ("@" + $0.name, $0.query) }) + Self.more.map({ ($0, $0) }) {
            let query = try QueryParser(now: now).parse(text)
            for (sort, limit, offset) in Self.sorts {
                lines.append("## \(name) — sort \(sort.rawValue), limit \(limit), offset \(offset)")
                let runner = SearchRunner(
                    archive: corpus.archive, query: query,
                    options: SearchOptions(limit: limit, offset: offset, sort: sort),
                    output: SearchOutput(format: .table, query: query, color: false))
                do {
                    // The statement, not the engine's plan of it (which follows SQLite's version and statistics).
                    var inPlan = false
                    try await runner.run(mode: .explain) { line in
                        if line.hasPrefix("plan (") {
                            inPlan = true
                        } else if !inPlan || !line.hasPrefix("  ") {
                            inPlan = false
                            lines.append(line)
                        }
                    }
                    lines += QueryPushdown(query).explanation  // as `search --explain` prints it
                } catch {
                    lines.append("error: \(error)")
                }
            }
        }
        let text = lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["QB_RECORD_EXPLAIN"] == "1" {
            try text.write(to: Self.golden, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try String(contentsOf: Self.golden, encoding: .utf8)
        let expected = recorded.split(separator: "\n", omittingEmptySubsequences: false)
        let actual = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(actual.count == expected.count)
        for (index, (got, want)) in zip(actual, expected).enumerated() where got != want {
            Issue.record("line \(index + 1) differs:\n  recorded: \(want)\n  now:      \(got)")
            break
        }
    }
}
