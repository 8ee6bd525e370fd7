/// The part of a batch insert of messages that writes their words: one statement writes the rows and their
/// vectors, so a page or an import batch stays one round trip.
enum MessageWordsInsert {
    /// A `WITH` item writing `message_words` for the rows of the statement's `inserted` item (`id`, `date_key`:
    /// what the insert into `messages` returned), each row's vector from the input item `r` (`id`, `words` as
    /// `tsvector` input or `NULL`, `n` its place in the batch). A message given twice in a batch is inserted once,
    /// as its first copy (`ORDER BY n`, `ON CONFLICT DO NOTHING`), so its first copy's words are taken.
    static let fromInserted = """
        worded AS (
            INSERT INTO message_words (date_key, words)
            SELECT date_key, words::tsvector FROM (
                SELECT DISTINCT ON (i.date_key) i.date_key, r.words FROM inserted i JOIN r ON r.id = i.id
                ORDER BY i.date_key, r.n) AS first
            WHERE words IS NOT NULL)
        """
}
