import Archive
import Foundation
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Restores records read from an export bundle (or another archive), each batch in one transaction, with the
    /// SQLite archive's contract and stored values.
    ///
    /// Idempotent: a record the archive already has (same id; for revisions the same message and revision; for
    /// membership the same period) is left as it is, so importing a bundle twice, or into the archive it came
    /// from, changes nothing. Records are stored verbatim — observation times, edit counts and tombstones
    /// included — and each new message gets its `words` and `text_folded` in the same transaction, as do the files
    /// its attachments name (`attachment_files`, with what the batch's ``ImportBatch/files`` says of them).
    /// Import dialogs before their messages and membership, and messages before their revisions.
    ///
    /// - Returns: how many records were new, and which held records the batch's copies are newer than.
    public func importRecords(_ batch: ImportBatch) async throws -> ImportOutcome {
        try await transaction { connection in
            let time = ArchiveTime.now()
            let indexer = PostgresFileIndexer(connection: connection, time: time)
            let held = PostgresHeldRecords(connection: connection)
            var inserted = 0
            var notMerged = NotMerged()
            for u in batch.users {
                let new = try await connection.changes(
                    """
                    INSERT INTO users (id, login, email, full_name, phone, created_at, updated_at, last_request_at,
                        custom_data, user_tags, raw, first_seen_at, last_seen_at)
                    VALUES (\(u.id), \(SQLiteText.cut(u.login)), \(SQLiteText.cut(u.email)),
                        \(SQLiteText.cut(u.fullName)), \(SQLiteText.cut(u.phone)), \(u.createdAt), \(u.updatedAt),
                        \(u.lastRequestAt), \(SQLiteText.cut(u.customData)), \(SQLiteText.cut(u.userTags)),
                        \(SQLiteText.cut(u.raw)), \(Int64(u.firstSeenAt)), \(Int64(u.lastSeenAt)))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                    """)
                inserted += new
                if new == 0, let user = try await held.user(u.id) { notMerged.compare(u, with: user) }
            }
            for d in batch.dialogs {
                let id = SQLiteText.cut(d.id)
                let new = try await connection.changes(
                    """
                    INSERT INTO dialogs (id, type, name, photo, user_id, occupant_ids, admin_ids, created_at,
                        updated_at, last_message_date_sent, xmpp_room_jid, data, raw, first_seen_at, last_seen_at,
                        deleted_at, hidden_for, deleted_evidence)
                    VALUES (\(id), \(d.type), \(SQLiteText.cut(d.name)), \(SQLiteText.cut(d.photo)),
                        \(d.userID), \(SQLiteText.cut(d.occupantIDsJSON)), \(SQLiteText.cut(d.adminIDsJSON)),
                        \(d.createdAt), \(d.updatedAt), \(d.lastMessageDateSent), \(SQLiteText.cut(d.xmppRoomJID)),
                        \(SQLiteText.cut(d.dataJSON)), \(SQLiteText.cut(d.raw)), \(Int64(d.firstSeenAt)),
                        \(Int64(d.lastSeenAt)), \(d.deletedAt.map(Int64.init)), \(HiddenFor.encode(d.hiddenFor)),
                        \(SQLiteText.cut(d.deletionEvidence)))
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                    """)
                inserted += new
                // A dialog the archive had already keeps its own hides, as its other columns.
                guard new > 0 else {
                    if let dialog = try await held.dialog(id) { notMerged.compare(d, with: dialog) }
                    continue
                }
                for hidden in d.hiddenFor {
                    try await connection.run(
                        """
                        INSERT INTO dialog_hides (dialog_id, user_id, observed_at)
                        VALUES (\(id), \(hidden.user), \(Int64(hidden.since))) ON CONFLICT DO NOTHING
                        """)
                }
            }
            // A period the archive holds (same member, same joining crawl) is kept as held, closed or not.
            for p in batch.membership {
                let dialogID = SQLiteText.cut(p.dialogID)
                let left = p.leftObservedAt.map(Int64.init)
                inserted += try await connection.changes(
                    """
                    INSERT INTO dialog_membership (dialog_id, user_id, joined_observed_at, left_observed_at)
                    SELECT \(dialogID), \(p.userID), \(Int64(p.joinedObservedAt)), \(left)
                    WHERE NOT EXISTS (SELECT 1 FROM dialog_membership WHERE dialog_id = \(dialogID)
                        AND user_id = \(p.userID) AND joined_observed_at = \(Int64(p.joinedObservedAt)))
                    ON CONFLICT DO NOTHING
                    RETURNING id
                    """)
            }
            inserted += try await Self.importMessages(
                batch.messages, indexer: indexer, held: held, notMerged: &notMerged, connection: connection)
            for r in batch.revisions {
                let hash = MessageContent.contentHash(
                    text: r.text, attachmentsJSON: r.attachmentsJSON, customJSON: r.customJSON)
                let messageID = SQLiteText.cut(r.messageID)
                // Not beyond the edits the archive's copy counts (as on SQLite).
                inserted += try await connection.changes(
                    """
                    INSERT INTO message_revisions (message_id, revision, text, attachments, custom, raw, content_hash,
                        updated_at, observed_at, superseded_at)
                    SELECT \(messageID), \(r.revision), \(SQLiteText.cut(r.text)),
                        \(SQLiteText.cut(r.attachmentsJSON)), \(SQLiteText.cut(r.customJSON)), \(SQLiteText.cut(r.raw)),
                        \(hash), \(r.updatedAt), \(Int64(r.observedAt)), \(Int64(r.supersededAt))
                    WHERE \(r.revision) <= (SELECT edited FROM messages WHERE id = \(messageID))
                    ON CONFLICT (message_id, revision) DO NOTHING
                    RETURNING id
                    """)
            }
            try await indexer.index(
                lists: batch.revisions.compactMap { revision in
                    guard revision.attachmentsJSON != "[]",
                        let array = try? JSONValue(parsing: Array(revision.attachmentsJSON.utf8)).arrayValue
                    else { return nil }
                    return array.compactMap { try? Attachment(json: $0) }
                })
            try await Self.importFiles(batch.files, time: time, connection: connection)
            return ImportOutcome(inserted: inserted, notMerged: notMerged)
        }
    }

    /// Messages: the columns QuickBlox sent are derived from `raw` exactly as a crawl derives them (so a restored
    /// message is indistinguishable from a crawled one), the archive's own columns are taken as given, and a new
    /// message's hides become `message_hides` rows. A copy that was not stored — the archive held the message, or an
    /// earlier copy in the batch was stored — is compared with what the archive holds, as on SQLite.
    private static func importMessages(
        _ messages: [ImportedMessage], indexer: PostgresFileIndexer, held: PostgresHeldRecords,
        notMerged: inout NotMerged, connection: PostgresConnection
    ) async throws -> Int {
        var batch = ImportMessageBatch()
        var attachmentLists: [[Attachment]] = []
        for imported in messages {
            batch.append(imported.content, archived: imported.archived)
            // Listed even when the message was there already: a `--attachments none` crawl may have skipped it.
            attachmentLists.append(imported.content.message.attachments)
        }
        let inserted = try await batch.insert(connection: connection)
        try await indexer.index(lists: attachmentLists)
        // A new message's first copy is the one stored; its later copies, and every copy of a held one, are not.
        var firstCopies = inserted
        let notStored = messages.filter { firstCopies.remove(SQLiteText.cut($0.archived.id)) == nil }
        if !notStored.isEmpty {
            let copies = try await held.messages(Set(notStored.map { SQLiteText.cut($0.archived.id) }))
            for imported in notStored {
                if let copy = copies[SQLiteText.cut(imported.archived.id)] { notMerged.compare(imported, with: copy) }
            }
        }
        return inserted.count
    }

    /// What a bundle says of its attachments' files, as on SQLite: a file the import put in the store becomes
    /// `ok` with its source unless the archive has it already; a status that explains an absence replaces only
    /// `listed`; `listed` changes nothing.
    private static func importFiles(_ files: [ImportedFile], time: Int, connection: PostgresConnection)
        async throws
    {
        for file in files {
            let key = SQLiteText.cut(file.key)
            switch file.status {
            case .ok:
                guard let sha256 = file.sha256, let size = file.size, let source = file.source else { continue }
                try await connection.run(
                    """
                    UPDATE attachment_files SET status = 'ok', sha256 = \(SQLiteText.cut(sha256)), size = \(size),
                        content_type = \(SQLiteText.cut(file.contentType)), source = \(SQLiteText.cut(source)),
                        fetched_at = \(Int64(time)), last_error = NULL
                    WHERE key = \(key) AND status <> 'ok'
                    """)
            case .listed:
                continue
            case .tooLarge, .gone, .external, .failed:
                let size = file.status == .tooLarge ? file.size : nil
                let reason = "\(file.status.rawValue) in the archive the imported bundle came from"
                try await connection.run(
                    """
                    UPDATE attachment_files SET status = \(file.status.rawValue), size = COALESCE(\(size), size),
                        last_error = \(reason)
                    WHERE key = \(key) AND status = 'listed'
                    """)
            }
        }
    }

    /// Gives a new, empty archive the identity of the archive a bundle (or a migration) came from: a restore is
    /// the same archive, and its exports must say so.
    ///
    /// - Throws: ``ArchiveError/notEmpty(path:)`` when the archive already holds messages or dialogs.
    public func adoptIdentity(_ identity: ArchiveIdentity) async throws {
        let location = location
        try await transaction { connection in
            // Serialised with a crawl's or another import's first writes: the check and the update see one state.
            try await connection.run("LOCK TABLE archive_meta IN EXCLUSIVE MODE")
            let used = try await connection.ints(
                "SELECT (SELECT COUNT(*) FROM messages) + (SELECT COUNT(*) FROM dialogs)")
            guard used.first == 0 else { throw ArchiveError.notEmpty(path: location) }
            try await connection.run(
                """
                UPDATE archive_meta SET archive_id = \(identity.id.uuidString.lowercased())::uuid,
                    created_at = \(Int64(identity.createdAt))
                WHERE id = 1
                """)
        }
    }
}
