import ArchiveSQLite
import Foundation

/// An archive as qbarchive made it before migration `v7-multilingual-words`: schema v6, both full-text indexes
/// with SQLite's built-in tokenizers (`unicode61 remove_diacritics 2`, `trigram`), filled by another tool
/// (Python's `sqlite3`), for the tests of the upgrade.
package enum OlderArchive {
    /// The texts of its messages, in turn (one in nine has none).
    package static let texts: [String?] = [
        "我们明天在北京见面", "ΕΛΛΆΔΑ ελλάδας", "İSTANBUL'da", "Straße", "والكتاب الجديد", "party 🎉", "cafe\u{301}",
        "plain english words", nil,
    ]

    /// Writes an archive of `count` messages in one dialog at `path`.
    package static func make(at path: String, count: Int) throws {
        try SQLiteArchive.create(at: path, migratedUpTo: "v6-per-user-deletion").close()
        let cases = texts.enumerated().map { index, text in
            "WHEN \(index) THEN " + (text.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL")
        }.joined(separator: " ")
        try SQLiteSurgery.run(
            path,
            """
            INSERT INTO dialogs (id, type, name, occupant_ids, raw, first_seen_at, last_seen_at)
            VALUES ('d1', 2, 'Room', '[1]', '{}', 0, 0);
            WITH RECURSIVE n(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM n WHERE x < \(count - 1))
            INSERT INTO messages (id, dialog_id, date_sent, text, attachments, custom, read_ids, delivered_ids, raw,
                content_hash, first_seen_at, last_seen_at)
            SELECT printf('m%07d', x), 'd1', 1700000000 + (x * 7919) % 900000, CASE x % \(texts.count) \(cases) END,
                '[]', '{}', '[]', '[]', '{}', x'00', 0, 0 FROM n;
            INSERT INTO message_words (message_words) VALUES ('rebuild');
            INSERT INTO message_trigrams (message_trigrams) VALUES ('rebuild');
            """)
    }
}
