import Foundation
import GRDB

extension Archive {
    /// Messages whose text matches an FTS5 word query, newest first; tombstoned messages included.
    ///
    /// The word index (`message_words`, `unicode61 remove_diacritics 2`) folds case and
    /// diacritics, so `cafe` finds "café"; `mün*` is a prefix query, served by the 2- and
    /// 3-character prefix indexes. `query` uses FTS5 syntax (phrases, `AND`, `OR`, `NOT`, `*`);
    /// a malformed query throws a database error. Results are in time order rather than by rank:
    /// ranking costs time on every hit before the limit applies.
    public func searchWords(_ query: String, limit: Int = 50) async throws -> [ArchivedMessage] {
        try await search(table: "message_words", match: query, limit: limit)
    }

    /// Messages whose text contains `substring`, case-insensitively, newest first.
    ///
    /// Served by the trigram index (`message_trigrams`), which finds any run of characters, even
    /// inside words ("++ vs" in "C++ vs. C#") without scanning the table.
    ///
    /// - Throws: ``ArchiveError/substringTooShort(_:)`` for fewer than 3 characters, which a
    ///   trigram index cannot match.
    public func searchSubstring(_ substring: String, limit: Int = 50) async throws -> [ArchivedMessage] {
        guard substring.count >= 3 else { throw ArchiveError.substringTooShort(substring) }
        // One FTS5 string token: the whole substring as a phrase, quotes doubled.
        let phrase = "\"" + substring.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        return try await search(table: "message_trigrams", match: phrase, limit: limit)
    }

    private func search(table: String, match: String, limit: Int) async throws -> [ArchivedMessage] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.messageColumns) FROM \(table) f JOIN messages m ON m.rowid = f.rowid
                    WHERE \(table) MATCH ? ORDER BY m.date_sent DESC, m.id DESC LIMIT ?
                    """,
                arguments: [match, limit]
            ).map(Self.archivedMessage(row:))
        }
    }
}
