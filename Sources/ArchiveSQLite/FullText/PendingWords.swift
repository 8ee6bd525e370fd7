import GRDB

/// The word index's new entries of a write transaction, inserted together at its end in their keys' order.
///
/// FTS5 keeps the terms of the rows inserted in a transaction in memory and writes them out as a new segment at
/// the commit — and whenever a row's key comes lower than the one before. The word index is keyed by the second a
/// message was sent (``DateKey``), and the pages a transaction writes together belong to dialogs at different dates:
/// inserted as they come, they would cut a segment, to be merged again later, at nearly every page. The substring
/// index is keyed by `rowid`, which grows through a transaction, and is inserted as the messages come.
///
/// Anything that removes an entry from the word index must ``flush()`` first: the entry may still be pending.
final class PendingWords {
    private var entries: [(key: Int64, text: String?)] = []
    private let insert: HotStatement

    init(db: Database) throws {
        insert = try HotStatement(db: db, sql: "INSERT INTO message_words (rowid, text) VALUES (?, ?)")
    }

    /// Adds an entry (a message without text too: every message has one, or FTS5's own check finds it missing).
    func add(key: Int64, text: String?) {
        entries.append((key, text))
    }

    /// Inserts the pending entries in their keys' order.
    func flush() throws {
        guard !entries.isEmpty else { return }
        entries.sort { $0.key < $1.key }
        for entry in entries {
            try insert.execute { row in
                row.bind(1, entry.key)
                row.bind(2, entry.text)
            }
        }
        entries.removeAll(keepingCapacity: true)
    }
}
