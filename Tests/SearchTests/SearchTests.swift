import ArchiveSQLite
import ArchiveTestSupport
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
        // One FTS5 query of quoted strings: NEAR, OR and the quote inside are searched for, not obeyed.
        #expect(plan.arguments.first == #"'"NEAR" AND "a"" OR b" AND "x'';DROP" AND "TABLE" AND "messages;"'"#)
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
                m.attachments, m.custom, m.raw, m.first_seen_at, m.last_seen_at, m.edited, m.deleted_at, m.hidden_for, \
                m.deleted_evidence, d.name, d.type, \
                u.login, u.full_name, r.login, r.full_name FROM messages m LEFT JOIN dialogs d ON d.id = m.dialog_id \
                LEFT JOIN users u ON u.id = m.sender_id LEFT JOIN users r ON r.id = m.recipient_id WHERE (m.date_key IN (SELECT rowid FROM message_words WHERE message_words MATCH ?)) AND \
                (m.sender_id = ?) AND (m.date_sent >= ? AND m.date_sent < ?) AND (NOT COALESCE((json_array_length(\
                m.attachments) > 0), FALSE)) ORDER BY m.date_sent DESC, m.id DESC LIMIT ? OFFSET ?
                """)
        #expect(plan.arguments == [#"'"refu" *'"#, "2", "1709251200", "1711929600", "20", "0"])
    }

    /// Common terms walk the date index; rare terms fetch their hits and sort. Both plans must give the
    /// same page as the reference order, whatever the limit and offset.
    @Test(arguments: ["money", "zoë", "money back", "money or scam", "not money", #"message ctn "ly/""#, "hello -call"])
    func bothPlansReturnTheSamePages(text: String) async throws {
        let corpus = try await SearchCorpus.make(seed: 12, count: 400)
        defer { corpus.remove() }
        let query = try Self.parser.parse(text)
        let all = try await corpus.archive.search(query, options: SearchOptions(limit: 10_000)).map(\.message.id)
        let ordered = all.map { id in corpus.entries.first { $0.message.id == id }!.message }
        #expect(zip(ordered, ordered.dropFirst()).allSatisfy { ($0.dateSent, $0.id) > ($1.dateSent, $1.id) })
        for (limit, offset) in [(1, 0), (5, 3), (20, 40)] {
            for sort in [SearchOptions.Sort.newest, .oldest] {
                let options = SearchOptions(limit: limit, offset: offset, sort: sort)
                let page = try await corpus.archive.search(query, options: options).map(\.message.id)
                let expected = Array((sort == .newest ? all : all.reversed()).dropFirst(offset).prefix(limit))
                #expect(page == expected, "\(text) limit \(limit) offset \(offset) \(sort)")
            }
        }
    }

    @Test func wordsAreReadInDateOrderAndOtherCommonTermsWalkTheDateIndex() async throws {
        let corpus = try await SearchCorpus.make(seed: 12, count: 400)
        defer { corpus.remove() }
        func plan(_ text: String) async throws -> String {
            try await corpus.archive.explain(try Self.parser.parse(text), options: SearchOptions(limit: 5)).sql
        }
        // Words only: the word index, keyed in date order, gives the page's seconds; nothing else is read.
        let window = "WHERE m.date_key IN (SELECT rowid FROM message_words WHERE message_words MATCH ? AND rowid >= ?)"
        #expect(try await plan("money").contains(window))
        #expect(try await plan("money or scam").contains(window))
        #expect(try await plan("hello -call").contains(window))
        // Fewer matches than the page: every one, no window.
        #expect(
            try await plan("nothingmatchesthis").contains(
                "WHERE m.date_key IN (SELECT rowid FROM message_words WHERE message_words MATCH ?) ORDER BY"))
        // 400 messages, limit 5: for other full-text sets the walk wins from ceil(sqrt(0.035 × 5 × 400)) = 9 hits on.
        #expect(try await plan(#"message ctn "ey""#).contains("INDEXED BY") == false)
        #expect(try await plan(#"message ctn "one""#).contains("INDEXED BY messages_by_date"))
        #expect(try await plan("money from:user1").contains("INDEXED BY") == false)
        let rank = try await corpus.archive.explain(try Self.parser.parse("money"), options: SearchOptions(sort: .rank))
        #expect(rank.sql.contains("INDEXED BY") == false)
        #expect(!rank.sql.contains("rowid >="))
        // A ranked page of words with an exclusion probes the query's own keys: the word index is not asked with
        // each of them (FTS5 would run the query again per key — minutes at a million messages).
        let excluding = try await corpus.archive.explain(
            try Self.parser.parse("money -hello"), options: SearchOptions(sort: .rank))
        #expect(excluding.sql.contains("+rk.rank_rowid IN (SELECT rowid FROM message_words"))
        #expect(!excluding.steps.contains { $0.contains("VIRTUAL TABLE INDEX 0:=") }, "\(excluding.steps)")
    }

    @Test func siblingWordsBecomeOneFullTextQuery() async throws {
        let corpus = try await SearchCorpus.make(seed: 9, count: 10)
        defer { corpus.remove() }
        let plan = try await corpus.archive.explain(try Self.parser.parse(#"refund "gift card" or pay* from:user2"#))
        let words = "m.date_key IN (SELECT rowid FROM message_words WHERE message_words MATCH ?)"
        #expect(plan.sql.contains("WHERE ((\(words))) OR ((\(words)) AND (m.sender_id = ?)) ORDER BY"))
        #expect(plan.arguments.prefix(3) == [#"'"refund" AND "gift card"'"#, #"'"pay" *'"#, "2"])
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
