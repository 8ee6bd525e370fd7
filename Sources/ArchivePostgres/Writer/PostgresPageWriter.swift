import Archive
import Foundation
import PostgresNIO
import QuickBlox
import TextIndex

/// Writes the messages of one page inside an open transaction, as the SQLite archive's page writer does.
///
/// The archived copies of the whole page are read with one statement (`id = ANY($1)`); each message then
/// takes the action ``MessageWriteAction`` decides — the same decision, on the same columns, as SQLite's. New
/// messages wait in a ``MessageInsertBatch`` and go in with one statement; an edit or a refresh takes one or two
/// statements; the messages only seen again, and the files the page's attachments name, are written together by
/// ``finish()``. Every insert and every text change writes `words` (``PostgresWords``) and `text_folded`
/// (``TextIndex/ContainsFolding``), which stand in for SQLite's two full-text indexes.
struct PostgresPageWriter {
    private let connection: PostgresConnection
    private let time: Int
    private let files: PostgresFileIndexer?
    private let erasedUsers: Set<Int>
    private let erasedDialogs: Set<String>
    /// What the archive holds under each id of the page, with its `rowid` (`nil` while it waits in `inserts`);
    /// updated as the page is written, so a message listed twice is decided on what its first copy left.
    private var stored: [String: (rowID: Int64?, message: StoredMessage)] = [:]
    /// New messages not yet inserted.
    private var inserts = MessageInsertBatch()
    /// Rows only seen again: `last_seen_at` and the tombstone, written by ``finish()``.
    private var touched: [Int64] = []
    /// The attachments of inserted and edited messages, in page order, for ``finish()`` to list their files.
    private var attachmentLists: [[Attachment]] = []
    private(set) var counts = PageCounts()

    /// Reads the erased users and dialogs and the archived copies of `contents`' messages.
    ///
    /// - Parameter indexFiles: whether the files attachments name go into `attachment_files`.
    init(connection: PostgresConnection, contents: [MessageContent], time: Int, indexFiles: Bool) async throws {
        self.connection = connection
        self.time = time
        files = indexFiles ? PostgresFileIndexer(connection: connection, time: time) : nil
        // Partial indexes keep these reads to the erased rows alone; one round trip for both.
        let erased = try await connection.query(
            """
            SELECT ARRAY(SELECT id FROM users WHERE erased_at IS NOT NULL),
                ARRAY(SELECT id FROM dialogs WHERE erased_at IS NOT NULL)
            """, logger: PostgresArchive.silent)
        var users: [Int] = []
        var dialogs: [String] = []
        for try await (userIDs, dialogIDs) in erased.decode(([Int], [String]).self) {
            (users, dialogs) = (userIDs, dialogIDs)
        }
        erasedUsers = Set(users)
        erasedDialogs = Set(dialogs)
        let ids = contents.map { SQLiteText.cut($0.message.id) }
        let rows = try await connection.query(
            """
            SELECT id, rowid, erased_at IS NOT NULL, updated_at, content_hash, raw FROM messages WHERE id = ANY(\(ids))
            """, logger: PostgresArchive.silent)
        for try await (id, rowID, erased, updatedAt, hash, raw) in rows.decode(
            (String, Int64, Bool, Int?, Data, String).self)
        {
            stored[id] = (rowID, StoredMessage(isErased: erased, updatedAt: updatedAt, contentHash: hash, raw: raw))
        }
    }

    /// Inserts (in a batch), revises, refreshes or touches one message.
    mutating func write(_ content: MessageContent) async throws {
        let id = SQLiteText.cut(content.message.id)
        // Listed again after its first copy was taken in: that copy goes in first, for its rowid.
        if let waiting = stored[id], waiting.rowID == nil { try await insertWaiting() }
        let existing = stored[id]
        let action = MessageWriteAction.decide(
            content, stored: existing?.message, erasedDialogs: erasedDialogs, erasedUsers: erasedUsers)
        counts.count(action)
        let rowID = existing?.rowID ?? 0
        switch action {
        case .insertErased:
            inserts.appendErased(content, id: id, time: time)
        case .insert:
            inserts.append(content, id: id)
            attachmentLists.append(content.message.attachments)
        case .revise:
            try await saveRevision(rowID: rowID)
            try await refresh(rowID: rowID, content, edited: true)
            attachmentLists.append(content.message.attachments)
        case .refresh:
            try await refresh(rowID: rowID, content, edited: false)
        case .touchErased, .touchOlder, .touch:
            touched.append(rowID)
        }
        if let after = action.stored(after: content, before: existing?.message) {
            stored[id] = (existing?.rowID, after)
        }
    }

    /// Inserts the new messages, touches those only seen again (`last_seen_at` moves, a tombstone goes: the
    /// server has them) and lists the files the page's attachments name.
    mutating func finish() async throws {
        try await insertWaiting()
        if !touched.isEmpty {
            try await connection.run(
                """
                UPDATE messages SET last_seen_at = \(Int64(time)), deleted_at = NULL WHERE rowid = ANY(\(touched))
                """)
        }
        try await files?.index(lists: attachmentLists)
    }

    /// Inserts the messages waiting in `inserts` and records their rowids.
    private mutating func insertWaiting() async throws {
        for (id, rowID) in try await inserts.insert(connection: connection, time: time) {
            stored[id]?.rowID = rowID
        }
    }

    /// The archived version becomes revision `edited + 1`, observed since the previous revision was superseded
    /// (or since the message was first seen).
    private func saveRevision(rowID: Int64) async throws {
        try await connection.run(
            """
            INSERT INTO message_revisions (message_id, revision, text, attachments, custom, raw, content_hash,
                updated_at, observed_at, superseded_at)
            SELECT id, edited + 1, text, attachments, custom, raw, content_hash, updated_at,
                COALESCE((SELECT MAX(superseded_at) FROM message_revisions r WHERE r.message_id = m.id),
                    first_seen_at),
                \(time)
            FROM messages m WHERE rowid = \(rowID)
            """)
    }

    /// Rewrites an archived message's columns; an edit also rewrites its words and folded text.
    private func refresh(rowID: Int64, _ content: MessageContent, edited: Bool) async throws {
        let message = content.message
        let text = message.text
        if edited {
            try await connection.run(
                """
                UPDATE messages SET sender_id = \(message.senderID), recipient_id = \(message.recipientID),
                    date_sent = \(message.dateSent), created_at = \(message.createdAt),
                    updated_at = \(message.updatedAt), text = \(text), attachments = \(content.attachments),
                    custom = \(content.custom), read_ids = \(content.readIDs), delivered_ids = \(content.deliveredIDs),
                    raw = \(content.raw), content_hash = \(content.contentHash), last_seen_at = \(time),
                    edited = edited + 1, deleted_at = NULL, text_folded = \(Self.folded(text))
                WHERE rowid = \(rowID)
                """)
            // After the update, whose new `date_sent` the key of the message's words followed (`ON UPDATE CASCADE`).
            if let vector = PostgresWords.vector(of: text) {
                try await connection.run(
                    """
                    INSERT INTO message_words (date_key, words)
                    SELECT date_key, \(vector)::tsvector FROM messages WHERE rowid = \(rowID)
                    ON CONFLICT (date_key) DO UPDATE SET words = EXCLUDED.words
                    """)
            } else {
                try await connection.run(
                    "DELETE FROM message_words WHERE date_key = (SELECT date_key FROM messages WHERE rowid = \(rowID))")
            }
        } else {
            // The same content hash: the same text, so the same words and folded text.
            try await connection.run(
                """
                UPDATE messages SET sender_id = \(message.senderID), recipient_id = \(message.recipientID),
                    date_sent = \(message.dateSent), created_at = \(message.createdAt),
                    updated_at = \(message.updatedAt), attachments = \(content.attachments),
                    custom = \(content.custom), read_ids = \(content.readIDs), delivered_ids = \(content.deliveredIDs),
                    raw = \(content.raw), last_seen_at = \(time), deleted_at = NULL
                WHERE rowid = \(rowID)
                """)
        }
    }

    /// `text_folded`: the text folded as `ctn` compares, `NULL` when folding changes nothing (or no text).
    static func folded(_ text: String?) -> String? {
        guard let text else { return nil }
        let folded = ContainsFolding.folded(text)
        // Scalar by scalar: `==` on strings is canonical equivalence, which would take a decomposed text for
        // its composed folding.
        return folded.unicodeScalars.elementsEqual(text.unicodeScalars) ? nil : folded
    }

}

/// A statement that must return a row returned none (a server that does not behave as PostgreSQL does).
enum PostgresWriterError: Error, CustomStringConvertible {
    case noRowReturned

    var description: String { "the server returned no row for an INSERT … RETURNING" }
}
