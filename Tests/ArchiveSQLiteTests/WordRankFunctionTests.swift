import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// `qbarchive_word_rank` ranks `--sort rank` on SQLite in place of FTS5's `bm25()`, reading each hit's length
/// through a blob handle: its score must be bm25's, bit for bit, for every hit of every kind of word query —
/// on texts of every length, with words repeated in a text, after edits changed the lengths, and, where the
/// lengths table cannot be read, from FTS5 itself.
@Suite("Word rank function")
struct WordRankFunctionTests {
    typealias F = ArchiveFixture

    static let vocabulary = ["refund", "money", "scam", "hello", "pay", "card", "gift", "rückerstattung", "北京", "🎉"]

    /// A text of 1–8 words, or one in five of up to 60 (so some words repeated), of the vocabulary and filler words
    /// that match nothing: each word of the vocabulary is in a minority of the texts, as words are.
    static func text(_ random: inout SeededRandom) -> String {
        let count = random.next() % 5 == 0 ? 1 + Int(random.next() % 60) : 1 + Int(random.next() % 8)
        return (0..<count).map { _ in
            let pick = Int(random.next() % UInt64(vocabulary.count + 30))
            return pick < vocabulary.count ? vocabulary[pick] : "filler\(pick)"
        }.joined(separator: " ")
    }

    /// FTS5 queries of every shape a search asks the word index: words, phrases, prefixes, `AND`, `OR`, `NOT`,
    /// and a word in no text.
    static let matches = [
        #""refund""#, #""scam""#, #""北京""#, #""🎉""#, #""refund money""#, #""gift card""#, #""re"*"#,
        #""refund" AND "money""#, #""scam" OR "hello""#, #""pay" NOT "card""#, #"("gift" OR "scam") AND "pay""#,
        #""refund" OR "money" OR "scam" OR "hello" OR "pay" OR "card""#, #""nowhere""#, #""filler7" OR "filler8""#,
    ]

    /// Every hit's two scores, for each query; and how many hits there were in all.
    static func scores(_ db: Database) throws -> (pairs: [(String, Double, Double)], hits: Int) {
        var pairs: [(String, Double, Double)] = []
        for match in matches {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT bm25(message_words) AS fts5, qbarchive_word_rank(message_words) AS ours \
                    FROM message_words WHERE message_words MATCH ?
                    """, arguments: [match])
            pairs += rows.map { (match, $0["fts5"], $0["ours"]) }
        }
        return (pairs, pairs.count)
    }

    static func expectEqual(_ pairs: [(String, Double, Double)]) {
        let differing = pairs.filter { $0.1 != $0.2 }
        let count = differing.count
        #expect(
            count == 0,
            "\(differing.count) of \(pairs.count) scores differ, first: \(differing.first.map { "\($0.0): bm25 \($0.1), ours \($0.2)" } ?? "")"
        )
    }

    @Test(arguments: [3, 4] as [UInt64])
    func theScoreIsBm25sBitForBit(seed: UInt64) async throws {
        let fixture = try await ArchiveFixture()
        var random = SeededRandom(seed: seed)
        let messages = (1...400).map { F.message($0, text: Self.text(&random), offset: $0) }
        try await fixture.write(messages)
        // Edits: a third of the texts replaced by others of another length.
        let edited = messages.filter { _ in random.next() % 3 == 0 }.map { message in
            var changed = message
            changed.text = Self.text(&random)
            changed.updatedAt = (message.updatedAt ?? 0) + 100
            return changed
        }
        try await fixture.write(edited, at: F.baseTime + 1_000)
        let (pairs, hits) = try await fixture.sqlite.pool.read { try Self.scores($0) }
        #expect(hits > 600)
        Self.expectEqual(pairs)
    }

    /// A word index without its lengths table (`columnsize=0`): the blob cannot be opened, and the lengths come
    /// from FTS5, which counts each hit's tokens again.
    @Test func withoutTheLengthsTableTheLengthsComeFromFTS5() throws {
        let directory = try TemporaryDirectory()
        let queue = try DatabaseQueue(
            path: directory.file("plain.sqlite"), configuration: SQLiteArchive.makeConfiguration(readOnly: false))
        var random = SeededRandom(seed: 5)
        let (pairs, hits) = try queue.write { db in
            try db.execute(
                sql: "CREATE VIRTUAL TABLE message_words USING fts5(text, tokenize='qbarchive_words 2', columnsize=0)")
            for _ in 0..<300 {
                try db.execute(sql: "INSERT INTO message_words(text) VALUES (?)", arguments: [Self.text(&random)])
            }
            return try Self.scores(db)
        }
        #expect(hits > 400)
        Self.expectEqual(pairs)
    }
}
