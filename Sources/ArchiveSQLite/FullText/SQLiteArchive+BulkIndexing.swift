import GRDB

extension SQLiteArchive {
    /// Runs `body`, which fills both full-text indexes with many rows in the open transaction, with FTS5 set for one large
    /// write, and sets them back before it returns, in the same transaction: nothing of the setting outlives it,
    /// even when the process is killed before the commit.
    ///
    /// As configured, FTS5 holds at most 1 MiB of new terms before it writes them out as a segment, and after
    /// each segment it writes it merges older ones a little (`automerge`), so a transaction of 50,000 messages
    /// wrote a segment for every MiB of its terms and merged them again as it went. For the fill, the terms are
    /// held up to ``bulkHashBytes`` (about one segment per index for a transaction of an import) and nothing is
    /// merged but what FTS5's `crisismerge` still forces (16 segments of one level), so the segments stay few;
    /// the word index is merged into one at the end of a bulk change (``compactWordIndexIfFragmented()``).
    /// Measured in docs/performance/ingest.md (*the full-text indexes filled as one write*).
    ///
    /// Setting an FTS5 option writes out the terms the index holds before it takes the new value, so the first
    /// option set back writes them out while merging is still off. A `body` that throws has the options set back
    /// all the same before the error goes on to undo the transaction.
    static func withBulkFullTextWrites<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        let saved = try fullTextIndexes.map { index in
            (
                index: index,
                options: try bulkOptions.map { option in
                    (option.name, try configured(option.name, of: index, db) ?? option.default)
                }
            )
        }
        for index in fullTextIndexes {
            for option in bulkOptions { try setOption(option.name, to: option.bulk, of: index, db) }
        }
        let setBack = {
            for (index, options) in saved {
                for (name, value) in options { try setOption(name, to: value, of: index, db) }
            }
        }
        let result: T
        do {
            result = try body()
        } catch {
            // FTS5 keeps the options it was last given in memory, and a rollback does not reload them: a fill that
            // failed and was undone would leave the connection writing with these (`BulkFullTextWritesTests`). Set
            // back here, they are the archive's again on this connection whether the transaction is then undone
            // or SQLite undid it already; only when that fails too (a full disk) does the connection keep the
            // bulk options, which change how FTS5 writes, not what the indexes hold.
            try? setBack()
            throw error
        }
        try setBack()
        return result
    }

    /// The new terms FTS5 holds in memory before it writes them out during a bulk fill: enough for one
    /// transaction of an import (50,000 messages) in each index.
    static let bulkHashBytes = 16 << 20

    /// The FTS5 options a bulk fill sets, each with FTS5's default (what an option never set is) and its bulk
    /// value.
    private static let bulkOptions: [(name: String, default: Int, bulk: Int)] = [
        ("hashsize", 1 << 20, bulkHashBytes),
        ("automerge", 4, 0),
    ]

    /// An FTS5 option as the index's configuration table holds it, or nil when it was never set.
    private static func configured(_ option: String, of index: String, _ db: Database) throws -> Int? {
        try Int.fetchOne(db, sql: "SELECT v FROM \(index)_config WHERE k = ?", arguments: [option])
    }

    private static func setOption(_ option: String, to value: Int, of index: String, _ db: Database) throws {
        try db.execute(sql: "INSERT INTO \(index) (\(index), rank) VALUES (?, ?)", arguments: [option, value])
    }
}
