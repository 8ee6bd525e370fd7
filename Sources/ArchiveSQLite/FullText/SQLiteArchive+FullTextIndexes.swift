import Archive
import GRDB

extension SQLiteArchive {
    /// The word and substring indexes as migration `v7-multilingual-words` makes them: external-content FTS5
    /// tables over `messages.text` tokenized by ``WordIndexTokenizer`` and ``SubstringIndexTokenizer`` (the
    /// shared TextIndex rules), rebuilt from every archived message.
    ///
    /// The index before it (`unicode61 remove_diacritics 2` and the built-in trigram tokenizer) never found a
    /// word inside a Chinese, Japanese or Thai sentence, folded accents in Latin script only and `ς` not at
    /// all; the rebuild replaces both indexes in the migration's one transaction, reporting progress every
    /// ``rebuildBatch`` messages. Killed part way, the transaction rolls back and the next open starts over.
    static func createMultilingualIndexes(_ db: Database, progress: UpgradeObserver?) throws {
        try db.execute(sql: "DROP TABLE message_words")
        try db.execute(sql: "DROP TABLE message_trigrams")
        try db.execute(sql: createWordIndex)
        try db.execute(sql: createSubstringIndex)
        try rebuildFullTextIndexes(db, progress: progress)
    }

    static let createWordIndex = """
        CREATE VIRTUAL TABLE message_words USING fts5(
            text, content='messages', content_rowid='rowid',
            tokenize='\(WordIndexTokenizer.name) \(WordIndexTokenizer.version)', prefix='2 3')
        """

    static let createSubstringIndex = """
        CREATE VIRTUAL TABLE message_trigrams USING fts5(
            text, content='messages', content_rowid='rowid',
            tokenize='\(SubstringIndexTokenizer.name) \(SubstringIndexTokenizer.version)')
        """

    /// Messages indexed between two progress reports.
    static let rebuildBatch = 20_000

    /// Fills both (empty) full-text indexes from `messages`, in rowid order, batch by batch.
    static func rebuildFullTextIndexes(_ db: Database, progress: UpgradeObserver?) throws {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") ?? 0
        let step = "rebuilding the word and substring indexes for every script"
        guard total > 0 else { return }
        progress?(UpgradeProgress(step: step, done: 0, total: total))
        var done = 0
        var after: Int64 = .min
        let bound = try db.makeStatement(
            sql: "SELECT rowid FROM messages WHERE rowid > ? ORDER BY rowid LIMIT 1 OFFSET \(rebuildBatch - 1)")
        let words = try db.makeStatement(
            sql:
                "INSERT INTO message_words (rowid, text) SELECT rowid, text FROM messages WHERE rowid > ? AND rowid <= ?"
        )
        let trigrams = try db.makeStatement(
            sql: """
                INSERT INTO message_trigrams (rowid, text) SELECT rowid, text FROM messages WHERE rowid > ? AND rowid <= ?
                """)
        while done < total {
            let upper = try Int64.fetchOne(bound, arguments: [after]) ?? .max
            try words.execute(arguments: [after, upper])
            try trigrams.execute(arguments: [after, upper])
            done = upper == .max ? total : min(total, done + rebuildBatch)
            after = upper
            progress?(UpgradeProgress(step: step, done: done, total: total))
            if upper == .max { break }
        }
    }
}
