import ArchiveStore
import Foundation
import QueryLanguage
import QuickBlox
import Testing

@testable import Search

@Suite("Search")
struct SearchTests {
    static let parser = QueryParser(now: SearchCorpus.baseTime)

    @Test func hostileInputStaysInBoundArguments() async throws {
        let corpus = try await SearchCorpus.make(seed: 9, count: 50)
        defer { corpus.remove() }
        let query = try Self.parser.parse(#"NEAR "a\" OR b" x';DROP TABLE messages; message ctn "x'y""#)
        let plan = try await corpus.archive.explain(query)
        #expect(!plan.sql.contains("DROP"))
        #expect(!plan.sql.contains("NEAR"))
        #expect(plan.arguments.contains(#"'"NEAR"'"#))
        #expect(plan.arguments.contains(#"'"a"" OR b"'"#))
        // Runs, finds nothing, and the table is still there.
        #expect(try await corpus.archive.search(query).isEmpty)
        #expect(try await corpus.archive.counts().messages == 50)
    }

    @Test func generatedSQLForCommonFilters() async throws {
        let corpus = try await SearchCorpus.make(seed: 9, count: 10)
        defer { corpus.remove() }
        let plan = try await corpus.archive.explain(
            try Self.parser.parse("refu* from:user2 date in 2024-03 -has:attachment"),
            options: SearchOptions(limit: 20))
        #expect(
            plan.sql == """
                SELECT m.id, m.dialog_id, m.sender_id, m.recipient_id, m.date_sent, m.created_at, m.updated_at, m.text,
                m.attachments, m.custom, m.raw, m.first_seen_at, m.last_seen_at, m.edited, m.deleted_at, d.name, d.type, \
                u.login, u.full_name FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id LEFT JOIN users u ON \
                u.id = m.sender_id WHERE (m.rowid IN (SELECT rowid FROM message_words WHERE message_words MATCH ?)) AND \
                (m.sender_id = ?) AND (m.date_sent >= ? AND m.date_sent < ?) AND (NOT COALESCE((json_array_length(\
                m.attachments) > 0), 0)) ORDER BY m.date_sent DESC, m.id DESC LIMIT ? OFFSET ?
                """)
        #expect(plan.arguments == [#"'"refu" *'"#, "2", "1709251200", "1711929600", "20", "0"])
    }

    @Test func shortSubstringsFallBackToAScanWithTheSameFolding() async throws {
        let corpus = try await SearchCorpus.make(seed: 4, count: 200)
        defer { corpus.remove() }
        for pattern in ["ZO", "zoë", "é", "+1", "++", "Y.C"] {
            let query = try Self.parser.parse("message ctn \"\(pattern)\"")
            let expected = Set(
                corpus.entries.filter { ($0.message.text ?? "").lowercased().contains(pattern.lowercased()) }
                    .map(\.message.id))
            let hits = try await corpus.archive.search(query, options: SearchOptions(limit: 1000))
            #expect(Set(hits.map(\.message.id)) == expected, "\(pattern)")
        }
    }

    @Test func rankOrdersByRelevanceAndOldestFirstIsATranscript() async throws {
        let corpus = try await SearchCorpus.make(seed: 5, count: 300)
        defer { corpus.remove() }
        let query = try Self.parser.parse("refund")
        let newest = try await corpus.archive.search(query, options: SearchOptions(limit: 1000))
        let oldest = try await corpus.archive.search(query, options: SearchOptions(limit: 1000, sort: .oldest))
        let ranked = try await corpus.archive.search(query, options: SearchOptions(limit: 1000, sort: .rank))
        #expect(!newest.isEmpty)
        #expect(oldest.map(\.message.id) == newest.map(\.message.id).reversed())
        #expect(Set(ranked.map(\.message.id)) == Set(newest.map(\.message.id)))
        let paged = try await corpus.archive.search(query, options: SearchOptions(limit: 3, offset: 2))
        #expect(paged.map(\.message.id) == Array(newest.map(\.message.id)[2..<5]))
    }

    @Test func contextShowsTheConversationAroundAHit() async throws {
        let corpus = try await SearchCorpus.make(seed: 6, count: 120)
        defer { corpus.remove() }
        let hit = corpus.entries[60].message
        let dialog = corpus.entries.filter { $0.message.chatDialogID == hit.chatDialogID }.map(\.message)
            .sorted { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }
        let index = try #require(dialog.firstIndex { $0.id == hit.id })
        let lines = try await corpus.archive.context(of: hit.id, before: 2, after: 2)
        #expect(lines.map(\.message.id) == dialog[max(0, index - 2)...min(dialog.count - 1, index + 2)].map(\.id))
        #expect(lines.allSatisfy { $0.senderLogin == nil || $0.senderLogin!.hasPrefix("user") })
    }

    @Test func highlightsAndSnippets() throws {
        let query = try Self.parser.parse(#"cafe "money back" message ctn "bit.ly""#)
        let highlighter = Highlighter(query: query)
        let text = "Go to the Café. I want my MONEY BACK: bit.ly/x"
        #expect(
            highlighter.snippet(text, width: 80, open: "[", close: "]")
                == "Go to the [Café]. I want my [MONEY BACK]: [bit.ly]/x")
        let long = String(repeating: "filler ", count: 30) + "café at the end"
        let snippet = highlighter.snippet(long, width: 30, open: "[", close: "]")
        #expect(snippet.hasPrefix("…"))
        #expect(snippet.contains("[café]"))
    }

    @Test(arguments: [
        ("plain", "plain"), ("a,b", #""a,b""#), (#"say "hi""#, #""say ""hi""""#), ("two\nlines", "\"two\nlines\""),
    ])
    func csvFieldsAreQuotedPerRFC4180(_ text: String, _ expected: String) {
        #expect(SearchOutput.csvField(text) == expected)
    }
}
