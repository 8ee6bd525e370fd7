import ArchiveSQL
import Crypto
import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Restores records read from an export bundle in one transaction (a restore of one batch: ``importing(_:)``).
    ///
    /// Idempotent: a record the archive already has (same id; for revisions the same message and
    /// revision; for membership the same period) is left as it is, so importing a bundle twice, or into
    /// the archive it came from, changes nothing. Records are stored verbatim — observation times,
    /// edit counts and tombstones included — and messages are indexed for search in the same
    /// transaction, as are the files their attachments name (`attachment_files`, with what the batch's
    /// ``ImportBatch/files`` says of them). Foreign keys hold: import dialogs before their messages and membership, and
    /// messages before their revisions.
    ///
    /// - Returns: how many records were new, and which held records the batch's copies are newer than.
    public func importRecords(_ batch: ImportBatch) async throws -> ImportOutcome {
        try await importing { try await $0.store(batch) }
    }

    /// Runs `body` with a session that holds the batches it stores in one transaction until they hold
    /// ``importTransactionRecords`` records, then commits (``SQLiteImportSession``); commits the rest when `body`
    /// returns or throws.
    public func importing<R: Sendable>(_ body: (any ImportSession) async throws -> R) async throws -> R {
        try await importing(recordsPerTransaction: Self.importTransactionRecords, body)
    }

    /// ``importing(_:)`` with another bound on a transaction (tests use small ones).
    func importing<R: Sendable>(recordsPerTransaction: Int, _ body: (any ImportSession) async throws -> R)
        async throws -> R
    {
        let session = SQLiteImportSession(pool: pool, recordsPerTransaction: recordsPerTransaction)
        let result: R
        do {
            result = try await body(session)
            try await session.finish()
        } catch {
            // What the open transaction holds is committed when `body` failed (a record that cannot be read, a
            // cancelled task); a batch the database refused has already rolled it back (``SQLiteImportSession``).
            // Either way no transaction stays open, even in a cancelled task (``SQLiteImportSession/finishNow()``).
            try? session.finishNow()
            throw error
        }
        return result
    }

    /// How many records a restore holds in one transaction: 50,000 messages write each leaf of the indexes on
    /// `messages` once where batches of 1,000 committed one by one wrote it up to fifty times, and the word
    /// index gets them in one ordered run (docs/performance.md, *an import's batches in one transaction*).
    static let importTransactionRecords = 50_000

    /// Stores one batch inside the open transaction (``SQLiteImportSession``); the full-text indexes are filled
    /// when the transaction commits (``indexImportedTexts(after:db:)``).
    static func storeImported(_ batch: ImportBatch, db: Database) throws -> ImportOutcome {
        var inserted = 0
        var notMerged = NotMerged()
        let held = HeldRecords(db: db)
        let time = ArchiveTime.now()
        let indexer = try FileIndexer(db: db, time: time)
        func run(_ statement: Statement, _ arguments: StatementArguments) throws {
            statement.setUncheckedArguments(arguments)
            try statement.execute()
            inserted += db.changesCount
        }
        if !batch.users.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO users (id, login, email, full_name, phone, created_at, updated_at, last_request_at,
                        custom_data, user_tags, raw, first_seen_at, last_seen_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                    """)
            for u in batch.users {
                try run(
                    statement,
                    [
                        u.id, u.login, u.email, u.fullName, u.phone, u.createdAt, u.updatedAt, u.lastRequestAt,
                        u.customData, u.userTags, u.raw, u.firstSeenAt, u.lastSeenAt,
                    ])
                if db.changesCount == 0, let user = try held.user(u.id) { notMerged.compare(u, with: user) }
            }
        }
        if !batch.dialogs.isEmpty {
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO dialogs (id, type, name, photo, user_id, occupant_ids, admin_ids, created_at,
                        updated_at, last_message_date_sent, xmpp_room_jid, data, raw, first_seen_at, last_seen_at,
                        deleted_at, hidden_for, deleted_evidence)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                    """)
            let hides = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO dialog_hides (dialog_id, user_id, observed_at) VALUES (?, ?, ?)")
            for d in batch.dialogs {
                try run(
                    statement,
                    [
                        d.id, d.type, d.name, d.photo, d.userID, d.occupantIDsJSON, d.adminIDsJSON, d.createdAt,
                        d.updatedAt, d.lastMessageDateSent, d.xmppRoomJID, d.dataJSON, d.raw, d.firstSeenAt,
                        d.lastSeenAt, d.deletedAt, HiddenFor.encode(d.hiddenFor), d.deletionEvidence,
                    ])
                // A dialog the archive had already keeps its own hides, as its other columns.
                guard db.changesCount > 0 else {
                    if let dialog = try held.dialog(d.id) { notMerged.compare(d, with: dialog) }
                    continue
                }
                for hidden in d.hiddenFor {
                    hides.setUncheckedArguments([d.id, hidden.user, hidden.since])
                    try hides.execute()
                }
            }
        }
        if !batch.membership.isEmpty {
            // A period the archive holds (the same member, joined at the same crawl) is kept as held, closed or
            // not: an older bundle's open copy of a period since closed would say the member never left.
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO dialog_membership (dialog_id, user_id, joined_observed_at, left_observed_at)
                    SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM dialog_membership WHERE dialog_id = ?1
                        AND user_id = ?2 AND joined_observed_at = ?3)
                    ON CONFLICT DO NOTHING
                    """)
            for p in batch.membership {
                try run(statement, [p.dialogID, p.userID, p.joinedObservedAt, p.leftObservedAt])
            }
        }
        if !batch.messages.isEmpty {
            inserted += try Self.importMessages(
                batch.messages, indexer: indexer, held: held, notMerged: &notMerged, db: db)
        }
        if !batch.revisions.isEmpty {
            // A revision beyond the edits the archive's copy counts belongs to a history the archive did not take
            // (the bundle's copy is newer, ``NotMerged``): the message's revisions stay the rows `edited` counts.
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO message_revisions (message_id, revision, text, attachments, custom, raw, content_hash,
                        updated_at, observed_at, superseded_at)
                    SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
                    WHERE ?2 <= (SELECT edited FROM messages WHERE id = ?1)
                    ON CONFLICT (message_id, revision) DO NOTHING
                    """)
            for r in batch.revisions {
                let hash = Self.contentHash(
                    text: r.text, attachmentsJSON: r.attachmentsJSON, customJSON: r.customJSON)
                try run(
                    statement,
                    [
                        r.messageID, r.revision, r.text, r.attachmentsJSON, r.customJSON, r.raw, hash, r.updatedAt,
                        r.observedAt, r.supersededAt,
                    ])
            }
            try Self.indexImportedFiles(batch.revisions, indexer: indexer)
        }
        try Self.importFiles(batch.files, time: time, db: db)
        return ImportOutcome(inserted: inserted, notMerged: notMerged)
    }

    /// Messages: the columns QuickBlox sent are derived from `raw` exactly as a crawl derives them, so a
    /// restored message is indistinguishable from a crawled one; the archive's own columns are taken as given.
    private static func importMessages(
        _ messages: [ImportedMessage], indexer: FileIndexer, held: HeldRecords, notMerged: inout NotMerged,
        db: Database
    ) throws -> Int {
        let insert = try HotStatement(
            db: db,
            sql: """
                INSERT INTO messages (id, dialog_id, sender_id, recipient_id, date_sent, created_at, updated_at,
                    text, attachments, custom, read_ids, delivered_ids, raw, content_hash, first_seen_at,
                    last_seen_at, edited, deleted_at, hidden_for, deleted_evidence)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
                """)
        let hides = try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO message_hides (message_id, user_id, observed_at) VALUES (?, ?, ?)")
        var inserted = 0
        var dialogs: Set<String> = []
        for imported in messages {
            let archived = imported.archived
            let content = imported.content
            let message = content.message
            try insert.execute { row in
                row.bindMessage(content, id: archived.id, dialogID: archived.dialogID)
                row.bind(15, archived.firstSeenAt)
                row.bind(16, archived.lastSeenAt)
                row.bind(17, archived.edited)
                row.bind(18, archived.deletedAt)
                row.bind(19, HiddenFor.encode(archived.hiddenFor))
                row.bind(20, archived.deletionEvidence)
            }
            let isNew = db.changesCount > 0
            // Listed even when the message was there already: a `--attachments none` crawl may have skipped it.
            try indexer.index(message.attachments)
            guard isNew else {
                if let copy = try held.message(archived.id) { notMerged.compare(imported, with: copy) }
                continue
            }
            inserted += 1
            dialogs.insert(archived.dialogID)
            for hidden in archived.hiddenFor {
                hides.setUncheckedArguments([archived.id, hidden.user, hidden.since])
                try hides.execute()
            }
        }
        try markStale(dialogs, db: db)
        return inserted
    }

    /// Indexes for search the texts of the messages stored since the transaction began, all new (the rowids above
    /// `rowID`, the largest before it: SQLite gives a new row a rowid above every other), at its commit: the word
    /// index in its keys' order — a bundle lists messages dialog by dialog, and FTS5 writes out what it holds
    /// whenever a key comes lower than the one before (a segment per dialog otherwise) — and the substring index
    /// in rowid order, each in one statement. `NOT INDEXED` keeps the rowid range and sorts it, where
    /// `messages_by_date_key` would walk every message of the archive. A message without text is indexed too (as
    /// a crawl indexes it: no words, a length of 0), so that FTS5's check of the indexes against the messages
    /// (`qbarchive check`) finds every row it expects. Both are filled as one write of each index
    /// (``withBulkFullTextWrites(_:_:)``).
    static func indexImportedTexts(after rowID: Int64, db: Database) throws {
        try withBulkFullTextWrites(db) {
            try db.execute(
                sql: """
                    INSERT INTO message_words (rowid, text) SELECT date_key, text FROM messages NOT INDEXED \
                    WHERE rowid > ? ORDER BY date_key
                    """, arguments: [rowID])
            try db.execute(
                sql: """
                    INSERT INTO message_trigrams (rowid, text) SELECT rowid, text FROM messages \
                    WHERE rowid > ? ORDER BY rowid
                    """, arguments: [rowID])
        }
    }

    /// The content hash of a version (see ``MessageContent``): canonical JSON of text, attachments, custom.
    static func contentHash(text: String?, attachmentsJSON: String, customJSON: String) -> Data {
        let attachments = (try? JSONValue(parsing: attachmentsJSON)) ?? .array([])
        let custom = (try? JSONValue(parsing: customJSON)) ?? .object([:])
        let content: JSONValue = [
            "attachments": attachments, "custom": custom, "text": text.map(JSONValue.string) ?? .null,
        ]
        return Data(SHA256.hash(data: content.serialized()))
    }

    /// Gives a new, empty archive the identity of the archive a bundle came from: a restore is the same
    /// archive, and its exports must say so.
    ///
    /// - Throws: ``ArchiveError/notEmpty(path:)`` when the archive already holds messages or dialogs.
    public func adoptIdentity(_ identity: ArchiveIdentity) async throws {
        let path = path
        try await pool.write { db in
            let used = try Int.fetchOne(
                db, sql: "SELECT (SELECT COUNT(*) FROM messages) + (SELECT COUNT(*) FROM dialogs)")
            guard used == 0 else { throw ArchiveError.notEmpty(path: path) }
            try db.execute(
                sql: "UPDATE archive_meta SET archive_id = ?, created_at = ? WHERE id = 1",
                arguments: [identity.id.uuidString.lowercased(), identity.createdAt])
        }
    }
}
