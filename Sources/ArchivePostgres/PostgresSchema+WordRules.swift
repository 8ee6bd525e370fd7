import Logging
import PostgresNIO

extension PostgresSchema {
    /// Messages whose words are computed again per statement.
    static let wordRulesBatch = 2_000

    /// Migration `v6-word-rules-2` (SQLite's `v11-word-rules-2`): every message's words computed again by the
    /// second version of the segmentation rules (``TextIndex/WordSegmenter``): a decimal digit of Thai, Lao,
    /// Khmer, Myanmar and the other scripts written without spaces is part of a number (`๒๐๒๔` is `2024`), and
    /// an invisible format character inside a word (a soft hyphen, a word joiner) no longer cuts it in two.
    ///
    /// Only texts holding a non-ASCII character can change (the rules for ASCII did not), so only those are
    /// read: their byte length differs from their length in characters.
    static func recomputeWords(_ connection: PostgresConnection, logger: Logger) async throws {
        var after = Int64.min
        while true {
            let rows = try await connection.query(
                """
                SELECT date_key, text FROM messages
                WHERE date_key > \(after) AND text IS NOT NULL AND octet_length(text) <> char_length(text)
                ORDER BY date_key LIMIT \(wordRulesBatch)
                """, logger: logger)
            var worded: (keys: [Int64], words: [String]) = ([], [])
            var wordless: [Int64] = []
            var last: Int64?
            for try await (key, text) in rows.decode((Int64, String).self) {
                last = key
                if let vector = PostgresWords.vector(of: text) {
                    worded.keys.append(key)
                    worded.words.append(vector)
                } else {
                    wordless.append(key)
                }
            }
            guard let last else { return }
            if !worded.keys.isEmpty {
                try await connection.query(
                    """
                    INSERT INTO message_words (date_key, words)
                    SELECT date_key, words::tsvector FROM unnest(\(worded.keys)::bigint[], \(worded.words)::text[])
                        AS given (date_key, words)
                    ON CONFLICT (date_key) DO UPDATE SET words = EXCLUDED.words
                    """, logger: logger)
            }
            if !wordless.isEmpty {
                try await connection.query(
                    "DELETE FROM message_words WHERE date_key = ANY(\(wordless)::bigint[])", logger: logger)
            }
            after = last
        }
    }
}
