import Archive
import ArchiveSQL
import GRDB

extension SQLiteArchive {
    /// The word and substring indexes as migration `v7-multilingual-words` makes them: external-content FTS5
    /// tables over `messages.text` tokenized by ``WordIndexTokenizer`` and ``SubstringIndexTokenizer`` (the
    /// shared TextIndex rules), rebuilt from every archived message. The word index is keyed by
    /// `messages.date_key` (``DateKey``, a virtual column with a unique index), so that it lists a word's
    /// messages in date order; the substring index keeps `rowid` (its many short tokens would grow by half with
    /// the longer keys).
    ///
    /// The index before it (`unicode61 remove_diacritics 2` and the built-in trigram tokenizer) never found a
    /// word inside a Chinese, Japanese or Thai sentence, folded accents in Latin script only and `ς` not at
    /// all; the rebuild replaces both indexes in the migration's one transaction, reporting progress every
    /// ``rebuildBatch`` messages. Killed part way, the transaction rolls back and the next open starts over.
    static func createMultilingualIndexes(_ db: Database, progress: UpgradeObserver?) throws {
        try db.execute(sql: "DROP TABLE message_words")
        try db.execute(sql: "DROP TABLE message_trigrams")
        try db.execute(
            sql: "ALTER TABLE messages ADD COLUMN date_key INTEGER GENERATED ALWAYS AS \(DateKey.expression) VIRTUAL")
        try db.execute(sql: "CREATE UNIQUE INDEX messages_by_date_key ON messages (date_key)")
        // Logins and full names are looked up by what a query names (`from:alice`).
        try db.execute(sql: "CREATE INDEX users_by_login ON users (login)")
        try db.execute(sql: createWordIndex)
        try db.execute(sql: createSubstringIndex)
        try rebuildFullTextIndexes(db, progress: progress)
    }

    static let createWordIndex = """
        CREATE VIRTUAL TABLE message_words USING fts5(
            text, content='messages', content_rowid='date_key',
            tokenize='\(WordIndexTokenizer.name) \(WordIndexTokenizer.version)', prefix='2 3')
        """

    static let createSubstringIndex = """
        CREATE VIRTUAL TABLE message_trigrams USING fts5(
            text, content='messages', content_rowid='rowid',
            tokenize='\(SubstringIndexTokenizer.name) \(SubstringIndexTokenizer.version)')
        """

    /// Both full-text indexes, by table name: what is done to each alike (checked, merged, filled in bulk) runs
    /// over this list.
    static let fullTextIndexes = ["message_words", "message_trigrams"]

    /// Messages indexed between two progress reports.
    static let rebuildBatch = 20_000

    /// Migration `v11-word-rules-2`: the word index rebuilt by the second version of the segmentation rules
    /// (``WordIndexTokenizer/version``): a decimal digit of Thai, Lao, Khmer, Myanmar and the other scripts
    /// written without spaces is part of a number (`๒๐๒๔` is `2024`; it was indexed as pairs of a run, so
    /// `2024` never found it), and an invisible format character inside a word (a soft hyphen, a word joiner)
    /// no longer cuts it in two (`infor­mation` was *infor* and *mation*). An index `v7-multilingual-words`
    /// made with these rules already (a newer build migrating an older archive) is kept.
    static func rebuildWordIndex(_ db: Database, progress: UpgradeObserver?) throws {
        let made = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'message_words'") ?? ""
        guard !made.contains("'\(WordIndexTokenizer.name) \(WordIndexTokenizer.version)'") else { return }
        try db.execute(sql: "DROP TABLE message_words")
        try db.execute(sql: createWordIndex)
        try rebuildFullTextIndexes(db, progress: progress, only: ["message_words"])
    }

    /// Fills the (empty) full-text indexes — both, or those named in `only` — from `messages`, batch by
    /// batch, each in its key's order: FTS5 writes what it holds to disk whenever a key comes lower than the
    /// one before, so an index filled out of order would be cut into thousands of small segments.
    static func rebuildFullTextIndexes(_ db: Database, progress: UpgradeObserver?, only: Set<String>? = nil) throws {
        let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM messages") ?? 0
        guard total > 0 else { return }
        for (index, key, step) in [
            ("message_words", "date_key", "rebuilding the word index for every script"),
            ("message_trigrams", "rowid", "rebuilding the substring index"),
        ] where only?.contains(index) ?? true {
            progress?(UpgradeProgress(step: step, done: 0, total: total))
            let bound = try db.makeStatement(
                sql: "SELECT \(key) FROM messages WHERE \(key) > ? ORDER BY \(key) LIMIT 1 OFFSET \(rebuildBatch - 1)")
            let fill = try db.makeStatement(
                sql: """
                    INSERT INTO \(index) (rowid, text) SELECT \(key), text FROM messages \
                    WHERE \(key) > ? AND \(key) <= ? ORDER BY \(key)
                    """)
            var done = 0
            var after = Int64.min
            while true {
                let upper = try Int64.fetchOne(bound, arguments: [after]) ?? .max
                try fill.execute(arguments: [after, upper])
                done = upper == .max ? total : min(total, done + rebuildBatch)
                progress?(UpgradeProgress(step: step, done: done, total: total))
                if upper == .max { break }
                after = upper
            }
        }
    }
}
