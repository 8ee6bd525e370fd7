import Archive
import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// An import's transaction fills both full-text indexes as one write (``SQLiteArchive/withBulkFullTextWrites(_:_:)``):
/// FTS5 holds the transaction's terms and writes each index's out as one segment, without merging on the way;
/// the options it sets for that are set back in the same transaction, to what the archive had.
@Suite("Full-text indexes filled as one write")
struct BulkFullTextWritesTests {
    typealias Session = ImportSessionTests

    /// Messages whose texts hold more than a MiB of new terms between them (FTS5's default budget before it
    /// writes a segment): random words of random letters, so most trigrams and words are new to the index.
    static func wordyBatches(_ numbers: Range<Int>) throws -> [ImportBatch] {
        var random = SeededRandom(seed: 7)
        let letters = Array("abcdefghijklmnopqrstuvwxyzαβγδεζηθ")
        var batch = ImportBatch()
        batch.messages = try numbers.map { n in
            let words = (0..<24).map { _ in String((0..<7).map { _ in random.pick(letters) }) }
            return try Session.message(n, words: " " + words.joined(separator: " "))
        }
        return [Session.dialogBatch(), batch]
    }

    static func segments(_ index: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(DISTINCT segid) FROM \(index)_idx") ?? 0
    }

    /// Stores `batches` and fills the substring index with them in one statement, FTS5 as the connection has it
    /// configured; returns the index's segments.
    static func fillAsConfigured(_ batches: [ImportBatch], _ db: Database) throws -> Int {
        for batch in batches { _ = try SQLiteArchive.storeImported(batch, db: db) }
        try db.execute(sql: "INSERT INTO message_trigrams (rowid, text) SELECT rowid, text FROM messages")
        return try segments("message_trigrams", db)
    }

    static func options(_ index: String, _ db: Database) throws -> [String: Int] {
        let rows = try Row.fetchAll(db, sql: "SELECT k, v FROM \(index)_config WHERE k <> 'version'")
        return Dictionary(uniqueKeysWithValues: rows.map { ($0["k"], $0["v"]) })
    }

    @Test func anImportsTransactionWritesEachIndexAsOneSegment() async throws {
        let batches = try Self.wordyBatches(0..<4_000)
        // The premise, on an archive of its own: the same messages indexed in one statement as FTS5 is configured
        // make several segments of the substring index.
        try await Session.withArchive { archive, _ in
            let segments = try await archive.pool.write { db in try Self.fillAsConfigured(batches, db) }
            #expect(segments > 1)
        }
        try await Session.withArchive { archive, _ in
            try await archive.importing(recordsPerTransaction: 1_000_000) { session in
                for batch in batches { _ = try await session.store(batch) }
            }
            let segments = try await archive.pool.read { db in
                (try Self.segments("message_trigrams", db), try Self.segments("message_words", db))
            }
            #expect(segments == (1, 1))
            try await Session.expectIndexed(archive, holding: Set(0..<4_000))
        }
    }

    struct Refused: Error {}

    /// A fill that fails is undone with its transaction, and the connection writes as configured again: the next
    /// transaction on it writes its terms out a MiB at a time (FTS5 keeps options in memory across a rollback, so
    /// they must have been set back before it, not merely rolled back).
    @Test func aFailedFillLeavesTheOptionsAsTheyWere() async throws {
        let batches = try Self.wordyBatches(0..<4_000)
        try await Session.withArchive { archive, _ in
            await #expect(throws: Refused.self) {
                try await archive.pool.write { db in
                    try SQLiteArchive.withBulkFullTextWrites(db) { throw Refused() }
                }
            }
            let segments = try await archive.pool.write { db in
                #expect(try Self.options("message_trigrams", db) == [:])
                return try Self.fillAsConfigured(batches, db)
            }
            #expect(segments > 1)
        }
    }

    /// The options are in force while the indexes are filled, and afterwards each index has what it had: FTS5's
    /// defaults (written out), or a value the archive was given.
    @Test(arguments: [nil, 8])
    func theOptionsAreSetBackInTheSameTransaction(automerge: Int?) async throws {
        try await Session.withArchive { archive, _ in
            try await archive.pool.write { db in
                if let automerge {
                    try db.execute(
                        sql: "INSERT INTO message_words (message_words, rank) VALUES ('automerge', ?)",
                        arguments: [automerge])
                }
                let during = try SQLiteArchive.withBulkFullTextWrites(db) {
                    try SQLiteArchive.fullTextIndexes.map { try Self.options($0, db) }
                }
                #expect(during == Array(repeating: ["automerge": 0, "hashsize": 16 << 20], count: 2))
            }
            try await archive.importing(recordsPerTransaction: 250) { session in
                for batch in [Session.dialogBatch()] + (try Session.messageBatches(0..<600, size: 100)) {
                    _ = try await session.store(batch)
                }
            }
            let options = try await archive.pool.read { db in
                (try Self.options("message_words", db), try Self.options("message_trigrams", db))
            }
            #expect(options.0 == ["automerge": automerge ?? 4, "hashsize": 1 << 20])
            #expect(options.1 == ["automerge": 4, "hashsize": 1 << 20])
            try await Session.expectIndexed(archive, holding: Set(0..<600))
        }
    }
}
