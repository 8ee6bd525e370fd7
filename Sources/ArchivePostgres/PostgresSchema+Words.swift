extension PostgresSchema {
    /// Migration `v5-word-table`: the word index's `tsvector`s move out of `messages` into a table of their own,
    /// `message_words (date_key, words)` — the name of SQLite's word index table — one row per message with
    /// words, GIN-indexed.
    ///
    /// Why: a phrase (`"see you"`) is answered by the GIN index's candidates (the messages holding both words),
    /// each rechecked against its stored vector for the words' positions. In `messages` that vector was the 23rd
    /// column of an 840-byte row, after the raw record: at a million messages, counting the 24,581 hits of
    /// `"see you"` read 22,597 pages of rows and took 85–100 ms, of which 7 ms was the recheck itself (measured
    /// on a copy of the same vectors). In a table of keys and vectors (about 130 bytes a row) the same count reads
    /// 13,688 small pages and takes 57 ms; a word alone, which GIN answers without a recheck, is as fast as before.
    ///
    /// The key is `date_key` (the key every word statement selects): `ON UPDATE CASCADE` follows a message whose
    /// `date_sent` a crawl rewrites, `ON DELETE CASCADE` one that is deleted. A message without text, or erased,
    /// has no row. `DROP COLUMN` frees the old vectors' space only as rows are rewritten (or by `VACUUM FULL
    /// messages` at a quiet time, docs/postgres.md): rewriting every row here would hold the archive for minutes.
    static let wordTable: [String] = [
        """
        CREATE TABLE message_words (
            date_key bigint PRIMARY KEY REFERENCES messages (date_key) ON UPDATE CASCADE ON DELETE CASCADE,
            words tsvector NOT NULL)
        """,
        "COMMENT ON COLUMN message_words.words IS 'TextIndex tokens of messages.text, written by qbarchive (not to_tsvector)'",
        "INSERT INTO message_words (date_key, words) SELECT date_key, words FROM messages WHERE words IS NOT NULL",
        "DROP INDEX messages_words",
        "CREATE INDEX message_words_gin ON message_words USING gin (words)",
        "ALTER TABLE messages DROP COLUMN words",
        "ANALYZE message_words",
    ]
}
