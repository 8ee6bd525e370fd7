import Archive
import Foundation
import PostgresNIO
import QuickBlox

/// The messages of one import batch (a bundle, or `migrate`), inserted with one `INSERT … SELECT FROM unnest(…)`
/// and their hides with one more, instead of two statements a message: as on the crawl path
/// (``MessageInsertBatch``), a statement's round trip, not its work, bounded the import.
///
/// Unlike a crawl's rows, an imported row carries the archive's own columns as the source had them (seen first
/// and last, edits, tombstone, hides, deletion evidence), and a message the archive has already is left as it is
/// (`ON CONFLICT DO NOTHING`); rows are inserted in the order they were added, so `rowid`s follow the batch.
struct ImportMessageBatch {
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
    private var firstSeen: [Int] = []
    private var lastSeen: [Int] = []
    private var edited: [Int] = []
    private var deletedAts: [Int?] = []
    private var hiddenFor: [String?] = []
    private var evidence: [String?] = []
    private var words: [String?] = []
    private var folded: [String?] = []
    /// Each id's hides, from its first row in the batch (a repeat is not new).
    private var hides: [String: [HiddenFor]] = [:]

    /// Adds a message as the source archive holds it, with its content derived as a crawl derives it.
    mutating func append(_ content: MessageContent, archived: ArchivedMessage) {
        let message = content.message
        let id = SQLiteText.cut(archived.id)
        ids.append(id)
        dialogIDs.append(SQLiteText.cut(archived.dialogID))
        senderIDs.append(message.senderID)
        recipientIDs.append(message.recipientID)
        datesSent.append(message.dateSent)
        createdAts.append(message.createdAt)
        updatedAts.append(message.updatedAt)
        texts.append(message.text)
        attachments.append(content.attachments)
        customs.append(content.custom)
        readIDs.append(content.readIDs)
        deliveredIDs.append(content.deliveredIDs)
        raws.append(content.raw)
        hashes.append(ByteBuffer(bytes: content.contentHash))
        firstSeen.append(archived.firstSeenAt)
        lastSeen.append(archived.lastSeenAt)
        edited.append(archived.edited)
        deletedAts.append(archived.deletedAt)
        hiddenFor.append(HiddenFor.encode(archived.hiddenFor))
        evidence.append(SQLiteText.cut(archived.deletionEvidence))
        words.append(PostgresWords.vector(of: message.text))
        folded.append(PostgresPageWriter.folded(message.text))
        if hides[id] == nil { hides[id] = archived.hiddenFor }
    }

    /// Inserts the messages the archive does not have yet, and their hides.
    ///
    /// - Returns: the ids of the messages that were new.
    func insert(connection: PostgresConnection) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        // One statement: the new rows, then the vectors of those with words under the keys they were given.
        let rows = try await connection.query(
            """
            WITH r AS MATERIALIZED (
                SELECT * FROM unnest(\(ids)::text[], \(dialogIDs)::text[], \(NullableArray(senderIDs))::bigint[],
                    \(NullableArray(recipientIDs))::bigint[], \(datesSent)::bigint[],
                    \(NullableArray(createdAts))::bigint[], \(NullableArray(updatedAts))::bigint[],
                    \(NullableArray(texts))::text[], \(attachments)::text[], \(customs)::text[], \(readIDs)::text[],
                    \(deliveredIDs)::text[], \(raws)::text[], \(hashes)::bytea[], \(firstSeen)::bigint[],
                    \(lastSeen)::bigint[], \(edited)::bigint[], \(NullableArray(deletedAts))::bigint[],
                    \(NullableArray(hiddenFor))::text[], \(NullableArray(evidence))::text[],
                    \(NullableArray(words))::text[], \(NullableArray(folded))::text[])
                    WITH ORDINALITY AS r (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at,
                        text, attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at,
                        last_seen_at, edited, deleted_at, hidden_for, deleted_evidence, words, text_folded, n)),
            inserted AS (
                INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at, text,
                    attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at, last_seen_at,
                    edited, deleted_at, hidden_for, deleted_evidence, text_folded)
                SELECT id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at, text, attachments,
                    custom, read_ids, delivered_ids, raw, content_hash, first_seen_at, last_seen_at, edited,
                    deleted_at, hidden_for, deleted_evidence, text_folded
                FROM r ORDER BY n
                ON CONFLICT (id) DO NOTHING
                RETURNING id, date_key),
            \(unescaped: MessageWordsInsert.fromInserted)
            SELECT id FROM inserted
            """, logger: PostgresArchive.silent)
        var inserted: [String] = []
        for try await id in rows.decode(String.self) { inserted.append(id) }
        var hideIDs: [String] = []
        var hideUsers: [Int] = []
        var hideSince: [Int] = []
        for id in inserted {
            for hidden in hides[id] ?? [] {
                hideIDs.append(id)
                hideUsers.append(hidden.user)
                hideSince.append(hidden.since)
            }
        }
        if !hideIDs.isEmpty {
            try await connection.run(
                """
                INSERT INTO message_hides (message_id, user_id, observed_at)
                SELECT * FROM unnest(\(hideIDs)::text[], \(hideUsers)::bigint[], \(hideSince)::bigint[])
                ON CONFLICT DO NOTHING
                """)
        }
        return Set(inserted)
    }
}
