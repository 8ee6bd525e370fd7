import Archive
import Foundation
import NIOCore
import PostgresNIO
import QuickBlox

/// New messages of a page, held column by column and inserted with one statement (`unnest` of one array per
/// column) instead of one `INSERT` each: on PostgreSQL a statement's round trip, not its work, bounded ingest
/// (one statement per message ran at a third of the SQLite archive's rate; docs/performance.md).
///
/// Rows are inserted in the order they were added (`WITH ORDINALITY … ORDER BY`), so `rowid`s are given in page
/// order, as one `INSERT` per message gave them.
struct MessageInsertBatch {
    private var ids: [String] = []
    private var dialogIDs: [String] = []
    private var senderIDs: [Int?] = []
    private var recipientIDs: [Int?] = []
    private var datesSent: [Int] = []
    private var createdAts: [Int?] = []
    private var updatedAts: [Int?] = []
    private var texts: [String?] = []
    private var attachments: [String] = []
    private var customs: [String] = []
    private var readIDs: [String] = []
    private var deliveredIDs: [String] = []
    private var raws: [String] = []
    private var hashes: [ByteBuffer] = []
    private var words: [String?] = []
    private var folded: [String?] = []
    private var erasedAts: [Int?] = []

    var isEmpty: Bool { ids.isEmpty }

    /// Adds a new message with its content, words and folded text.
    mutating func append(_ content: MessageContent, id: String) {
        let message = content.message
        append(
            id: id, message: message, createdAt: message.createdAt, updatedAt: message.updatedAt, text: message.text,
            attachments: content.attachments, custom: content.custom, raw: content.raw, hash: content.contentHash,
            readIDs: content.readIDs, deliveredIDs: content.deliveredIDs)
        words.append(PostgresWords.vector(of: message.text))
        folded.append(PostgresPageWriter.folded(message.text))
        erasedAts.append(nil)
    }

    /// Adds a new message of an erased dialog or sender: its skeleton, no content, erased at `time`.
    mutating func appendErased(_ content: MessageContent, id: String, time: Int) {
        let message = content.message
        let skeleton = ErasedMessage.skeleton(
            id: message.id, dialogID: message.chatDialogID, dateSent: message.dateSent, senderID: message.senderID,
            recipientID: message.recipientID)
        append(
            id: id, message: message, createdAt: nil, updatedAt: nil, text: nil, attachments: "[]", custom: "{}",
            raw: skeleton, hash: Data(), readIDs: content.readIDs, deliveredIDs: content.deliveredIDs)
        words.append(nil)
        folded.append(nil)
        erasedAts.append(time)
    }

    private mutating func append(
        id: String, message: Message, createdAt: Int?, updatedAt: Int?, text: String?, attachments: String,
        custom: String, raw: String, hash: Data,
        readIDs: String, deliveredIDs: String
    ) {
        ids.append(id)
        dialogIDs.append(SQLiteText.cut(message.chatDialogID))
        senderIDs.append(message.senderID)
        recipientIDs.append(message.recipientID)
        datesSent.append(message.dateSent)
        createdAts.append(createdAt)
        updatedAts.append(updatedAt)
        texts.append(text)
        self.attachments.append(attachments)
        customs.append(custom)
        self.readIDs.append(readIDs)
        self.deliveredIDs.append(deliveredIDs)
        raws.append(raw)
        hashes.append(ByteBuffer(bytes: hash))
    }

    /// Inserts the rows held, seen first and last at `time`, and empties the batch.
    ///
    /// - Returns: each inserted id's `rowid`.
    mutating func insert(connection: PostgresConnection, time: Int) async throws -> [String: Int64] {
        guard !isEmpty else { return [:] }
        // One statement: the rows, then the vectors of those with words under the keys the rows were given.
        let rows = try await connection.query(
            """
            WITH r AS MATERIALIZED (
                SELECT * FROM unnest(\(ids)::text[], \(dialogIDs)::text[], \(NullableArray(senderIDs))::bigint[],
                    \(NullableArray(recipientIDs))::bigint[], \(datesSent)::bigint[],
                    \(NullableArray(createdAts))::bigint[], \(NullableArray(updatedAts))::bigint[],
                    \(NullableArray(texts))::text[], \(attachments)::text[], \(customs)::text[], \(readIDs)::text[],
                    \(deliveredIDs)::text[], \(raws)::text[], \(hashes)::bytea[], \(NullableArray(words))::text[],
                    \(NullableArray(folded))::text[], \(NullableArray(erasedAts))::bigint[])
                    WITH ORDINALITY AS r (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at,
                        text, attachments, custom, read_ids, delivered_ids, raw, content_hash, words, text_folded,
                        erased_at, n)),
            inserted AS (
                INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at, text,
                    attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at, last_seen_at,
                    text_folded, erased_at)
                SELECT id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at, text, attachments,
                    custom, read_ids, delivered_ids, raw, content_hash, \(Int64(time)), \(Int64(time)), text_folded,
                    erased_at
                FROM r ORDER BY n
                RETURNING id, rowid, date_key),
            \(unescaped: MessageWordsInsert.fromInserted)
            SELECT id, rowid FROM inserted
            """, logger: PostgresArchive.silent)
        var rowIDs: [String: Int64] = [:]
        for try await (id, rowID) in rows.decode((String, Int64).self) { rowIDs[id] = rowID }
        guard rowIDs.count == ids.count else { throw PostgresWriterError.noRowReturned }
        self = MessageInsertBatch()
        return rowIDs
    }
}
