import ArchiveSQL
import Foundation
import GRDB
import QuickBlox

/// Writes the messages of one page inside an open write transaction.
///
/// The per-message loop is the archive's hot path, so it uses cached prepared statements with
/// bound arguments instead of Codable records, and maintains the two external-content FTS5
/// indexes with explicit statements: triggers would run each statement in its own savepoint and
/// flush FTS5's pending terms every time (several times slower; see docs/archive-schema.md). The word
/// index is keyed by ``DateKey`` (`messages.date_key`), the substring index by `rowid`.
struct PageWriter {
    private let db: Database
    private let time: Int
    private(set) var counts = PageCounts()

    private let select: HotStatement
    private let insert: HotStatement
    private let update: Statement
    private let touch: HotStatement
    private let saveRevision: Statement
    /// The word index's new entries, inserted at the transaction's end in their keys' order.
    private let words: PendingWords
    private let indexTrigrams: HotStatement
    private let unindexWords: Statement
    private let unindexTrigrams: Statement
    private let files: FileIndexer?
    private let insertErased: Statement
    /// Whether a message was inserted, changed or revived: the page's dialog must be marked stale for the
    /// statistics roll-ups (``SQLiteArchive/markStale(_:db:)``).
    private(set) var changesFigures = false
    /// Users and dialogs erased (`qbarchive erase`): their new messages are stored already erased.
    private let erasedUsers: Set<Int>
    private let erasedDialogs: Set<String>

    /// - Parameter indexFiles: whether the files attachments name go into `attachment_files` (a crawl
    ///   with `--attachments none` skips it, and the archive remembers to catch up).
    init(db: Database, time: Int, words: PendingWords, indexFiles: Bool = true) throws {
        self.db = db
        self.time = time
        self.words = words
        files = indexFiles ? try FileIndexer(db: db, time: time) : nil
        select = try HotStatement(
            db: db,
            sql: """
                SELECT rowid, content_hash, updated_at, raw, text, date_sent, erased_at, deleted_at FROM messages
                WHERE id = ?
                """)
        insertErased = try db.cachedStatement(
            sql: """
                INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at, text,
                    attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at, last_seen_at,
                    erased_at)
                VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, '[]', '{}', ?, ?, ?, x'', ?, ?, ?)
                """)
        // Partial indexes keep these reads to the erased rows alone.
        erasedUsers = Set(try Int.fetchAll(db.cachedStatement(sql: "SELECT id FROM users WHERE erased_at IS NOT NULL")))
        erasedDialogs = Set(
            try String.fetchAll(db.cachedStatement(sql: "SELECT id FROM dialogs WHERE erased_at IS NOT NULL")))
        insert = try HotStatement(
            db: db,
            sql: """
                INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at,
                    text, attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at,
                    last_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        update = try db.cachedStatement(
            sql: """
                UPDATE messages SET sender_id = ?, recipient_id = ?, date_sent = ?, created_at = ?, updated_at = ?,
                    text = ?, attachments = ?, custom = ?, read_ids = ?, delivered_ids = ?, raw = ?, content_hash = ?,
                    last_seen_at = ?, edited = edited + ?, deleted_at = NULL
                WHERE rowid = ?
                """)
        touch = try HotStatement(db: db, sql: "UPDATE messages SET last_seen_at = ?, deleted_at = NULL WHERE rowid = ?")
        saveRevision = try db.cachedStatement(
            sql: """
                INSERT INTO message_revisions (message_id, revision, text, attachments, custom, raw, content_hash,
                    updated_at, observed_at, superseded_at)
                SELECT id, edited + 1, text, attachments, custom, raw, content_hash, updated_at,
                    COALESCE((SELECT MAX(superseded_at) FROM message_revisions r WHERE r.message_id = m.id),
                        first_seen_at),
                    ?
                FROM messages m WHERE rowid = ?
                """)
        indexTrigrams = try HotStatement(db: db, sql: "INSERT INTO message_trigrams (rowid, text) VALUES (?, ?)")
        unindexWords = try db.cachedStatement(
            sql: "INSERT INTO message_words (message_words, rowid, text) VALUES ('delete', ?, ?)")
        unindexTrigrams = try db.cachedStatement(
            sql: "INSERT INTO message_trigrams (message_trigrams, rowid, text) VALUES ('delete', ?, ?)")
    }

    /// Inserts, revises, refreshes or touches one message, as ``MessageWriteAction`` decides.
    mutating func write(_ content: MessageContent) throws {
        let message = content.message
        let existing = try select.fetchFirst({ $0.bind(1, message.id) }, read: Existing.init)
        let action = MessageWriteAction.decide(
            content, stored: existing?.stored, erasedDialogs: erasedDialogs, erasedUsers: erasedUsers)
        counts.count(action)
        // What the statistics roll-ups count changes unless a live message is only seen again.
        switch action {
        case .touchErased, .touchOlder, .touch:
            changesFigures = changesFigures || existing?.isDeleted == true
        default: changesFigures = true
        }
        guard let existing else {
            if action == .insertErased {
                try insertErased.execute(arguments: [
                    message.id, message.chatDialogID, message.senderID, message.recipientID, message.dateSent,
                    content.readIDs, content.deliveredIDs,
                    SQLiteArchive.skeleton(
                        id: message.id, dialogID: message.chatDialogID, dateSent: message.dateSent,
                        senderID: message.senderID, recipientID: message.recipientID),
                    time, time, time,
                ])
                // In both indexes with no text, as every message is, or their own check finds a row they lack.
                try index(rowID: db.lastInsertedRowID, dateSent: message.dateSent, text: nil)
                return
            }
            try insert.execute { row in
                row.bindMessage(content, id: message.id, dialogID: message.chatDialogID)
                row.bind(15, time)
                row.bind(16, time)
            }
            let rowID = db.lastInsertedRowID
            try index(rowID: rowID, dateSent: message.dateSent, text: message.text)
            try files?.index(message.attachments)
            return
        }
        let rowID = existing.rowID
        let storedDateSent = existing.dateSent
        switch action {
        case .revise:
            let storedText = existing.text
            try saveRevision.execute(arguments: [time, rowID])
            try unindex(rowID: rowID, dateSent: storedDateSent, text: storedText)
            try refresh(rowID: rowID, content, edited: true)
            try index(rowID: rowID, dateSent: message.dateSent, text: message.text)
            try files?.index(message.attachments)
        case .refresh:
            try refresh(rowID: rowID, content, edited: false)
            if storedDateSent != message.dateSent {
                // The word index's key holds the second the message was sent: a new date is a new key.
                let text = existing.text
                try words.flush()
                try unindexWords.execute(arguments: [DateKey.of(dateSent: storedDateSent, rowID: rowID), text])
                words.add(key: DateKey.of(dateSent: message.dateSent, rowID: rowID), text: text)
            }
        case .touchErased, .touchOlder, .touch, .insert, .insertErased:
            try touch.execute { row in
                row.bind(1, time)
                row.bind(2, rowID)
            }
        }
    }

    private func refresh(rowID: Int64, _ content: MessageContent, edited: Bool) throws {
        let message = content.message
        try update.execute(arguments: [
            message.senderID, message.recipientID, message.dateSent, message.createdAt, message.updatedAt,
            message.text, content.attachments, content.custom, content.readIDs, content.deliveredIDs, content.raw,
            content.contentHash, time, edited ? 1 : 0, rowID,
        ])
    }

    private func index(rowID: Int64, dateSent: Int, text: String?) throws {
        words.add(key: DateKey.of(dateSent: dateSent, rowID: rowID), text: text)
        try indexTrigrams.execute { row in
            row.bind(1, rowID)
            row.bind(2, text)
        }
    }

    private func unindex(rowID: Int64, dateSent: Int, text: String?) throws {
        // The entry to remove may still be pending (a message inserted earlier in the transaction).
        try words.flush()
        try unindexWords.execute(arguments: [DateKey.of(dateSent: dateSent, rowID: rowID), text])
        try unindexTrigrams.execute(arguments: [rowID, text])
    }
}

/// The archived copy of a message about to be written, as ``PageWriter``'s look-up reads it.
private struct Existing {
    let rowID: Int64
    let stored: StoredMessage
    let dateSent: Int
    let text: String?
    /// `deleted_at` is set: a tombstone the server's copy lifts.
    let isDeleted: Bool

    /// Reads `rowid, content_hash, updated_at, raw, text, date_sent, erased_at, deleted_at`.
    init(_ row: HotStatement.Columns) {
        rowID = row.int64(0)
        stored = StoredMessage(
            isErased: !row.isNull(6), updatedAt: row.int(2), contentHash: row.data(1) ?? Data(),
            raw: row.string(3) ?? "")
        text = row.string(4)
        dateSent = row.int(5) ?? 0
        isDeleted = !row.isNull(7)
    }
}

extension HotStatement.Bindings {
    /// Binds a message's columns as `messages` lists them, from `id` (1) to `content_hash` (14): the crawl's insert
    /// and the import's.
    mutating func bindMessage(_ content: MessageContent, id: String, dialogID: String) {
        let message = content.message
        bind(1, id)
        bind(2, dialogID)
        bind(3, message.senderID)
        bind(4, message.recipientID)
        bind(5, message.dateSent)
        bind(6, message.createdAt)
        bind(7, message.updatedAt)
        bind(8, message.text)
        bind(9, content.attachments)
        bind(10, content.custom)
        bind(11, content.readIDs)
        bind(12, content.deliveredIDs)
        bind(13, content.raw)
        bind(14, content.contentHash)
    }
}
