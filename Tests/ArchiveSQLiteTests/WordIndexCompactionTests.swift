import ArchiveTestSupport
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// After a bulk change the word index is merged into one segment when it was cut into several of comparable
/// size, and left alone when only small segments were added; searches answer the same either way.
@Suite("Word index compaction")
struct WordIndexCompactionTests {
    typealias F = ArchiveFixture

    static let words = ["invoice", "refund", "Rechnung", "会议", "παράδοση", "meeting", "lunch", "budget"]

    /// `count` messages from `first` on, each in its own page (a transaction, so a segment, each): texts of
    /// three words of ``words`` and a number, sent at keys all over the archive's range (as a crawl's dialogs
    /// interleave).
    static func writePages(_ fixture: ArchiveFixture, first: Int, count: Int, perPage: Int) async throws {
        var random = SeededRandom(seed: UInt64(first + 1))
        for page in 0..<count {
            let messages = (0..<perPage).map { index in
                let number = first + page * perPage + index
                let text = (0..<3).map { _ in random.pick(words) }.joined(separator: " ")
                return F.message(
                    number, text: "\(text) \(number)", offset: Int.random(in: 0..<10_000_000, using: &random))
            }
            try await fixture.write(messages)
        }
    }

    static func leaves(_ fixture: ArchiveFixture) async throws -> [Int] {
        try await fixture.sqlite.pool.read { try SQLiteArchive.wordIndexLeaves($0) }
    }

    /// The ids every word of ``words``, a phrase, a negation and a prefix match, newest first.
    static func answers(_ fixture: ArchiveFixture) async throws -> [[String]] {
        var answers: [[String]] = []
        for word in words + ["\"invoice refund\"", "invoice -refund", "inv*"] {
            answers.append(try await fixture.find(word, limit: 10_000))
        }
        return answers
    }

    @Test func aCrawlsSegmentsOfComparableSizeAreMergedIntoOne() async throws {
        let fixture = try await F()
        try await Self.writePages(fixture, first: 0, count: 40, perPage: 50)
        let before = try await Self.leaves(fixture)
        #expect(before.count > 2)
        #expect(SQLiteArchive.wordIndexNeedsCompaction(leaves: before))
        let answers = try await Self.answers(fixture)
        #expect(answers[0].count > 100)

        try await fixture.archive.settleAfterBulkChange()

        #expect(try await Self.leaves(fixture).count == 1)
        #expect(try await Self.answers(fixture) == answers)
        try await expectIndexesConsistent(fixture.sqlite)
        // Nothing left to merge: a second settle writes nothing.
        #expect(try await fixture.sqlite.compactWordIndexIfFragmented() == false)
    }

    @Test func aFewSmallSegmentsBesideALargeOneAreLeftAlone() async throws {
        let fixture = try await F()
        try await Self.writePages(fixture, first: 0, count: 40, perPage: 50)
        try await fixture.archive.settleAfterBulkChange()
        let merged = try await Self.leaves(fixture)
        #expect(merged.count == 1)

        // A small crawl: a few pages, well under a tenth of the index.
        try await Self.writePages(fixture, first: 10_000, count: 2, perPage: 5)
        let grown = try await Self.leaves(fixture)
        #expect(grown.count > 1)
        #expect(!SQLiteArchive.wordIndexNeedsCompaction(leaves: grown))
        try await fixture.archive.settleAfterBulkChange()
        #expect(try await Self.leaves(fixture) == grown)
        #expect(try await fixture.find("10004").count == 1)

        // Growth past a tenth is merged again.
        try await Self.writePages(fixture, first: 20_000, count: 10, perPage: 50)
        #expect(SQLiteArchive.wordIndexNeedsCompaction(leaves: try await Self.leaves(fixture)))
        let answers = try await Self.answers(fixture)
        try await fixture.archive.settleAfterBulkChange()
        #expect(try await Self.leaves(fixture).count == 1)
        #expect(try await Self.answers(fixture) == answers)
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test(arguments: [
        ([], false), ([1], false), ([500], false), ([100, 5], false), ([100, 3, 3, 4], false),
        ([90, 10], true), ([100, 12], true), ([30, 30, 30], true), ([1, 1], true),
    ])
    func theRuleIsATenthOfTheLeavesOutsideTheLargestSegment(leaves: [Int], merged: Bool) {
        #expect(SQLiteArchive.wordIndexNeedsCompaction(leaves: leaves) == merged)
    }
}
