import Archive
import Crypto
import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Migration `v8-erasure`: `erased_at` on messages, users and dialogs, and the erasure register (who, when,
    /// why, how many — never content). `purged_at` stays `NULL` until the erased bytes are gone from the file
    /// (``purgeErased()``).
    static func createErasure(_ db: Database) throws {
        for table in ["messages", "users", "dialogs"] {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN erased_at INTEGER")
        }
        try db.create(table: "erasures") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("at", .integer).notNull()
            t.column("target_kind", .text).notNull()
            t.column("target_id", .text).notNull()
            t.column("reason", .text)
            t.column("messages", .integer).notNull()
            t.column("revisions", .integer).notNull()
            t.column("files", .integer).notNull()
            t.column("purged_at", .integer)
        }
        // What every page write reads (``PageWriter``): the few erased users and dialogs, not the tables.
        try db.execute(sql: "CREATE INDEX users_erased ON users (id) WHERE erased_at IS NOT NULL")
        try db.execute(sql: "CREATE INDEX dialogs_erased ON dialogs (id) WHERE erased_at IS NOT NULL")
    }

    /// Erases a message, a person or a dialog (``ErasureTarget``), in one transaction with its register entry
    /// and audit entry, then purges the erased bytes from the file (``purgeErased()``).
    ///
    /// Each message concerned keeps its skeleton — id, dialog, time, sender and recipient ids, `erased_at` —
    /// so counts and threads stay truthful; its text leaves both full-text indexes, and its text, attachments,
    /// custom fields and raw record are replaced; its earlier versions are deleted. Attachment files that no
    /// remaining message or revision names leave `attachment_files` and the file store. A person's profile
    /// becomes a stable pseudonym (`erased-` and 12 hex digits of a hash of the archive's id and the user's);
    /// a dialog loses its name (a pseudonym), photo and custom data. Later crawls store what the server still
    /// has of them already erased (``PageWriter``).
    ///
    /// - Throws: ``ArchiveError/unknownTarget(_:)`` when the archive does not hold the target.
    public func erase(
        _ target: ErasureTarget, reason: String?, dryRun: Bool, holdsSeen: Int64?, at time: Int
    ) async throws -> ErasureReport {
        let store = fileStore
        let (report, unreferenced) = try await pool.writeWithoutTransaction { db in
            // Freed pages are overwritten with zeros, so deleted text does not linger in the file's free space.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            var result: (ErasureReport, [String])?
            try db.inTransaction(.immediate) {
                // Holds are written under the same write lock: one placed after the caller's check is seen here.
                if let holdsSeen, let newest = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM holds"),
                    newest > holdsSeen
                {
                    throw ArchiveError.holdPlacedMeanwhile(newest)
                }
                result = try Self.erase(db, target, reason: reason, at: time, identity: try Self.archiveID(db))
                return dryRun ? .rollback : .commit
            }
            return result!
        }
        var final = report
        final.dryRun = dryRun
        guard !dryRun else { return final }
        for digest in unreferenced where FileStore.isDigest(digest) { unlink(store.path(for: digest)) }
        try await purgeErased()
        return final
    }

    /// Completes erasures whose bytes may still be in the file: merges both full-text indexes into fresh
    /// segments (FTS5 keeps a deleted row's tokens in old segments until a merge), folds the WAL in and
    /// truncates it, and rewrites the file (VACUUM), all with `secure_delete`. Idempotent; an erasure killed
    /// between its transaction and this step is completed by the next `erase`, or `crawl`. Returns whether
    /// there was anything to purge.
    @discardableResult
    public func purgeErased() async throws -> Bool {
        try await pool.writeWithoutTransaction { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM erasures WHERE purged_at IS NULL") ?? 0 > 0 else {
                return false
            }
            try db.execute(sql: "PRAGMA secure_delete = ON")
            for index in Self.fullTextIndexes {
                try db.execute(sql: "INSERT INTO \(index) (\(index)) VALUES ('optimize')")
            }
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "VACUUM")
            try db.execute(
                sql: "UPDATE erasures SET purged_at = ? WHERE purged_at IS NULL", arguments: [ArchiveTime.now()])
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            return true
        }
    }

    private static func archiveID(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT archive_id FROM archive_meta WHERE id = 1") ?? ""
    }

    /// The pseudonym of an erased user: stable for the archive, not the id itself.
    static func pseudonym(userID: Int, archiveID: String) -> String {
        let digest = SHA256.hash(data: Data("\(archiveID):user:\(userID)".utf8))
        return "erased-" + digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    /// The erasure inside the caller's transaction; returns the report and the SHA-256s of stored files that
    /// nothing names any more (removed from the store once the transaction commits).
    static func erase(
        _ db: Database, _ target: ErasureTarget, reason: String?, at time: Int, identity: String
    ) throws -> (ErasureReport, [String]) {
        let (selection, argument, targetID) = try resolve(db, target)
        var report = ErasureReport(target: target, targetID: targetID)
        // In batches of 1000, so that memory stays flat however much a retention run erases; each batch is read
        // before it is changed (no cursor runs over rows being rewritten), and follows on from the last by the
        // order of the index the selection uses — messages_by_dialog (dialog_id, date_sent, id), else
        // messages_by_sender / messages_by_date, which end in the rowid — so each batch is an index range.
        let tieBreak = target.kind == "dialog" ? "id" : "rowid"
        let batch = try db.makeStatement(
            sql: """
                SELECT rowid, date_key, text, attachments, id, dialog_id, date_sent, sender_id, recipient_id
                FROM messages WHERE \(selection) AND erased_at IS NULL AND (date_sent, \(tieBreak)) > (?, ?)
                ORDER BY date_sent, \(tieBreak) LIMIT 1000
                """)
        let revisionAttachments = try db.makeStatement(
            sql: "SELECT attachments FROM message_revisions WHERE message_id = ?")
        let forgetRevisions = try db.makeStatement(sql: "DELETE FROM message_revisions WHERE message_id = ?")
        var keys: Set<String> = []
        let unindexWords = try db.makeStatement(
            sql: "INSERT INTO message_words (message_words, rowid, text) VALUES ('delete', ?, ?)")
        let unindexTrigrams = try db.makeStatement(
            sql: "INSERT INTO message_trigrams (message_trigrams, rowid, text) VALUES ('delete', ?, ?)")
        // The row stays in each index with no text (as a message without text is), or the indexes' own
        // check would find a message they do not know.
        let indexWords = try db.makeStatement(sql: "INSERT INTO message_words (rowid, text) VALUES (?, NULL)")
        let indexTrigrams = try db.makeStatement(sql: "INSERT INTO message_trigrams (rowid, text) VALUES (?, NULL)")
        let strip = try db.makeStatement(
            sql: """
                UPDATE messages SET text = NULL, attachments = '[]', custom = '{}', raw = ?, content_hash = x'',
                    erased_at = ? WHERE rowid = ?
                """)
        var keeping: Set<String> = []
        if case .sentBefore(_, let kept) = target { keeping = kept }
        func erase(_ row: Row) throws {
            if !keeping.isEmpty, keeping.contains(row["id"] as String) {
                report.kept += 1
                return
            }
            report.perDialog[row["dialog_id"] as String, default: 0] += 1
            let rowID: Int64 = row["rowid"]
            let text: String? = row["text"]
            let dateKey: Int64 = row["date_key"]
            try unindexWords.execute(arguments: [dateKey, text])
            try unindexTrigrams.execute(arguments: [rowID, text])
            try indexWords.execute(arguments: [dateKey])
            try indexTrigrams.execute(arguments: [rowID])
            keys.formUnion(attachmentKeys(row["attachments"]))
            for attachments in try String.fetchAll(revisionAttachments, arguments: [row["id"] as String]) {
                keys.formUnion(attachmentKeys(attachments))
            }
            try strip.execute(arguments: [
                skeleton(
                    id: row["id"], dialogID: row["dialog_id"], dateSent: row["date_sent"], senderID: row["sender_id"],
                    recipientID: row["recipient_id"]),
                time, rowID,
            ])
            try forgetRevisions.execute(arguments: [row["id"] as String])
            report.revisions += db.changesCount
            report.messages += 1
        }
        var after: [any DatabaseValueConvertible] = [Int64.min, tieBreak == "id" ? "" : Int64.min]
        while true {
            let rows = try Row.fetchAll(batch, arguments: StatementArguments([argument] + after))
            guard let final = rows.last else { break }
            after = [final["date_sent"] as Int64, tieBreak == "id" ? final["id"] as String : final["rowid"] as Int64]
            for row in rows { try erase(row) }
        }
        try markStale(report.perDialog.keys, db: db)  // attachments gone: the statistics roll-ups' types
        let digests = try forgetUnreferencedFiles(db, keys: keys)
        report.files = digests.count
        if case .user = target, let id = Int(targetID) {
            let name = pseudonym(userID: id, archiveID: identity)
            // Upserted: a person known only as a sender (no profile archived) must be marked erased too, or
            // their next messages would be archived with their text.
            try db.execute(
                sql: """
                    INSERT INTO users (id, login, full_name, raw, first_seen_at, last_seen_at, erased_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET login = excluded.login, full_name = excluded.full_name,
                        email = NULL, phone = NULL, custom_data = NULL, user_tags = NULL, raw = excluded.raw,
                        erased_at = excluded.erased_at
                    """,
                arguments: [id, name, name, "{\"id\":\(id),\"login\":\"\(name)\"}", time, time, time])
            report.users = db.changesCount
            report.pseudonym = name
            // A private dialog's name and photo are, in most apps, the other person's name and picture
            // (subject-access exports leave them out for that reason): the person's private dialogs lose both.
            let faces = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, raw FROM dialogs
                    WHERE type = 3 AND EXISTS (SELECT 1 FROM json_each(dialogs.occupant_ids) WHERE value = ?)
                        AND (name IS NOT NULL OR photo IS NOT NULL)
                    """,
                arguments: [id])
            for face in faces {
                let raw = PrivateDialogFace.cleared(try JSONValue(parsing: face["raw"] as String)).jsonString
                try db.execute(
                    sql: "UPDATE dialogs SET name = NULL, photo = NULL, raw = ? WHERE id = ?",
                    arguments: [raw, face["id"] as String])
            }
        }
        if case .dialog(let id) = target {
            let name = "erased dialog " + pseudonym(userID: 0, archiveID: identity + ":dialog:" + id).dropFirst(7)
            try db.execute(
                sql: """
                    UPDATE dialogs SET name = ?, photo = NULL, data = NULL, raw = json_object('_id', id, 'type', type),
                        erased_at = ? WHERE id = ?
                    """,
                arguments: [name, time, id])
            report.dialogs = db.changesCount
        }
        try forgetErasedLastMessages(db)
        try db.execute(
            sql: """
                INSERT INTO erasures (at, target_kind, target_id, reason, messages, revisions, files)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [time, target.kind, targetID, reason, report.messages, report.revisions, report.files])
        report.registerID = db.lastInsertedRowID
        _ = try appendAudit(
            db, action: "erase",
            detail: [
                "erasure": .int(Int(db.lastInsertedRowID)), "target": .string(target.kind), "id": .string(targetID),
                "reason": reason.map(JSONValue.string) ?? .null, "messages": .int(report.messages),
                "revisions": .int(report.revisions), "files": .int(report.files), "users": .int(report.users),
                "dialogs": .int(report.dialogs),
            ],
            at: time)
        return (report, digests)
    }

    /// QuickBlox repeats each dialog's last message (`last_message`) in the dialog's record: where that message is
    /// erased, or was sent by an erased person, the copy goes too (set to `null`), or the text would outlive its
    /// erasure in `dialogs.raw` (and in exports of it). Later crawls store it so as well (``storeDialogs``).
    static func forgetErasedLastMessages(_ db: Database) throws {
        try db.execute(
            sql: """
                UPDATE dialogs SET raw = json_set(raw, '$.last_message', NULL)
                WHERE erased_at IS NULL AND json_extract(raw, '$.last_message') IS NOT NULL
                    AND (EXISTS (SELECT 1 FROM messages m WHERE m.id = json_extract(dialogs.raw, '$.last_message_id')
                            AND m.erased_at IS NOT NULL)
                        OR EXISTS (SELECT 1 FROM users u
                            WHERE u.id = json_extract(dialogs.raw, '$.last_message_user_id') AND u.erased_at IS NOT NULL))
                """)
    }

    /// Whether a target selects a message not yet erased (a target the archive no longer knows selects none).
    static func hasUnerased(_ db: Database, _ target: ErasureTarget) throws -> Bool {
        guard let (selection, argument, _) = try? resolve(db, target) else { return false }
        var keeping: Set<String> = []
        if case .sentBefore(_, let kept) = target { keeping = kept }
        let ids = try String.fetchCursor(
            db, sql: "SELECT id FROM messages WHERE \(selection) AND erased_at IS NULL", arguments: [argument])
        return try ids.contains { !keeping.contains($0) }
    }

    /// The messages a target selects, and the id it resolved to.
    private static func resolve(_ db: Database, _ target: ErasureTarget) throws
        -> (selection: String, argument: any DatabaseValueConvertible, id: String)
    {
        switch target {
        case .message(let id):
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM messages WHERE id = ?", arguments: [id]) == true else {
                throw ArchiveError.unknownTarget("the archive holds no message with the id \(id)")
            }
            return ("id = ?", id, id)
        case .dialog(let id):
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM dialogs WHERE id = ?", arguments: [id]) == true else {
                throw ArchiveError.unknownTarget("the archive holds no dialog with the id \(id)")
            }
            return ("dialog_id = ?", id, id)
        case .sentBefore(let instant, _):
            return ("date_sent < ?", instant, ISO8601.format(instant))
        case .user(let text):
            var id = Int(text)
            if id == nil {
                id = try Int.fetchOne(db, sql: "SELECT id FROM users WHERE login = ?", arguments: [text])
            }
            guard let id,
                try Bool.fetchOne(
                    db,
                    sql: "SELECT 1 FROM users WHERE id = ? UNION SELECT 1 FROM messages WHERE sender_id = ? LIMIT 1",
                    arguments: [id, id]) == true
            else {
                throw ArchiveError.unknownTarget(
                    "the archive holds no user with the id or login \(text) (an erased user's login is a pseudonym; "
                        + "give the id)")
            }
            return ("sender_id = ?", id, String(id))
        }
    }

    /// The raw record an erased message keeps: what its skeleton columns hold, nothing else.
    static func skeleton(id: String, dialogID: String, dateSent: Int, senderID: Int?, recipientID: Int?) -> String {
        ErasedMessage.skeleton(
            id: id, dialogID: dialogID, dateSent: dateSent, senderID: senderID, recipientID: recipientID)
    }

    private static func attachmentKeys(_ json: String) -> [String] {
        guard json != "[]", let array = try? JSONValue(parsing: Array(json.utf8)).arrayValue else { return [] }
        return array.compactMap { try? Attachment(json: $0) }.compactMap(AttachmentKey.of)
    }

    /// Removes from `attachment_files` the keys no remaining message or revision names; returns the SHA-256 of
    /// each stored file no remaining row names (to remove from the store).
    static func forgetUnreferencedFiles(_ db: Database, keys: Set<String>) throws -> [String] {
        guard !keys.isEmpty else { return [] }
        var stillNamed: Set<String> = []
        let rows = try Row.fetchCursor(db, sql: FileIndexer.everyAttachmentList)
        while let row = try rows.next() {
            for key in attachmentKeys(row[0]) where keys.contains(key) { stillNamed.insert(key) }
        }
        var digests: [String] = []
        for key in keys.subtracting(stillNamed).sorted() {
            let digest = try String.fetchOne(
                db, sql: "SELECT sha256 FROM attachment_files WHERE key = ?", arguments: [key])
            try db.execute(sql: "DELETE FROM attachment_files WHERE key = ?", arguments: [key])
            if let digest,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM attachment_files WHERE sha256 = ?", arguments: [digest])
                    == 0
            {
                digests.append(digest)
            }
        }
        return digests
    }
}
