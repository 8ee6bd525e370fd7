import Archive
import Foundation
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// The pseudonym SQLite gives for `input` (`archive id:user:id`): `erased-` and the first 6 bytes of its
    /// SHA-256 in hex, computed by the server (`sha256()`, PostgreSQL 11 and later).
    static func pseudonym(of input: String, connection: PostgresConnection) async throws -> String {
        let hex = try await connection.strings(
            "SELECT encode(substr(sha256(convert_to(\(input), 'UTF8')), 1, 6), 'hex')")
        return "erased-" + (hex.first ?? "")
    }

    /// The profile of an erased person becomes its pseudonym; upserted, so that a person known only as a sender
    /// is marked erased too (or their next messages would be archived with their text).
    static func eraseProfile(id: Int64, pseudonym name: String, at time: Int, connection: PostgresConnection)
        async throws
    {
        let raw = "{\"id\":\(id),\"login\":\"\(name)\"}"
        let now = Int64(time)
        try await connection.run(
            """
            INSERT INTO users (id, login, full_name, raw, first_seen_at, last_seen_at, erased_at)
            VALUES (\(id), \(name), \(name), \(raw), \(now), \(now), \(now))
            ON CONFLICT (id) DO UPDATE SET login = excluded.login, full_name = excluded.full_name,
                email = NULL, phone = NULL, custom_data = NULL, user_tags = NULL, raw = excluded.raw,
                erased_at = excluded.erased_at
            """)
    }

    /// An erased dialog keeps its id and type; its name becomes `name`, its photo and data go, and its raw
    /// record is what SQLite's `json_object('_id', id, 'type', type)` writes. Returns how many dialogs changed.
    static func eraseDialog(id: String, name: String, at time: Int, connection: PostgresConnection) async throws
        -> Int
    {
        guard let type = try await connection.ints("SELECT type FROM dialogs WHERE id = \(id)").first else { return 0 }
        let raw = JSONValue.object(["_id": .string(id), "type": .int(type)]).jsonString
        return try await connection.changes(
            """
            UPDATE dialogs SET name = \(name), photo = NULL, data = NULL, raw = \(raw), erased_at = \(Int64(time))
            WHERE id = \(id) RETURNING 1
            """)
    }

    /// The private dialogs of an erased person lose their name and photo (``PrivateDialogFace``); records are
    /// rewritten in Swift, as SQLite's are, so both stay the same bytes.
    static func clearPrivateFaces(of user: Int, connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            SELECT id, occupant_ids, raw FROM dialogs
            WHERE type = 3 AND (name IS NOT NULL OR photo IS NOT NULL)
            """, logger: silent)
        var faces: [(id: String, raw: String)] = []
        for try await (id, occupants, raw) in rows.decode((String, String, String).self) {
            let ids = (try? JSONValue(parsing: occupants))?.arrayValue?.compactMap(\.lenientInt) ?? []
            if ids.contains(user) { faces.append((id, raw)) }
        }
        for face in faces {
            let raw = PrivateDialogFace.cleared(try JSONValue(parsing: face.raw)).jsonString
            try await connection.run("UPDATE dialogs SET name = NULL, photo = NULL, raw = \(raw) WHERE id = \(face.id)")
        }
    }

    /// QuickBlox repeats each dialog's last message in the dialog's record: where that message is erased, or
    /// was sent by an erased person, the copy goes too (`"last_message": null`), as on SQLite. The records are
    /// read and rewritten in Swift, so they stay the canonical JSON every backend stores (`jsonb` would refuse
    /// a record holding `\u0000`); the `LIKE` only narrows the read to records that name a last message.
    static func forgetErasedLastMessages(_ connection: PostgresConnection) async throws {
        let rows = try await connection.query(
            """
            SELECT id, raw FROM dialogs WHERE erased_at IS NULL AND raw LIKE '%"last\\_message":%'
            """, logger: silent)
        var records: [(id: String, members: [String: JSONValue])] = []
        for try await (id, raw) in rows.decode((String, String).self) {
            guard case .object(let members) = try? JSONValue(parsing: Array(raw.utf8)),
                let copy = members["last_message"], copy != .null
            else { continue }
            records.append((id, members))
        }
        guard !records.isEmpty else { return }
        let messageIDs = records.compactMap { $0.members["last_message_id"]?.stringValue }
        let userIDs = records.compactMap { $0.members["last_message_user_id"]?.lenientInt }.map(Int64.init)
        let erasedMessages = Set(
            try await connection.strings(
                "SELECT id FROM messages WHERE id = ANY(\(messageIDs)) AND erased_at IS NOT NULL"))
        let erasedUsers = Set(
            try await connection.ints("SELECT id FROM users WHERE id = ANY(\(userIDs)) AND erased_at IS NOT NULL"))
        for var record in records {
            let erased =
                record.members["last_message_id"]?.stringValue.map(erasedMessages.contains) == true
                || record.members["last_message_user_id"]?.lenientInt.map(erasedUsers.contains) == true
            guard erased else { continue }
            record.members["last_message"] = .null
            let raw = JSONValue.object(record.members).jsonString
            try await connection.run("UPDATE dialogs SET raw = \(raw) WHERE id = \(record.id)")
        }
    }

    /// Writes the erasure's register entry and its audit entry (the same detail as SQLite's); returns the entry's
    /// id.
    static func register(
        kind: String, id: String, reason: String?, report: ErasureReport, at time: Int,
        connection: PostgresConnection
    ) async throws -> Int64 {
        let entry = try await insertRegister(
            kind: kind, id: id, reason: reason, messages: report.messages, revisions: report.revisions,
            files: report.files, at: time, connection: connection)
        try await appendAudit(
            action: "erase",
            detail: [
                "erasure": .int(Int(entry)), "target": .string(kind), "id": .string(id),
                "reason": reason.map(JSONValue.string) ?? .null, "messages": .int(report.messages),
                "revisions": .int(report.revisions), "files": .int(report.files), "users": .int(report.users),
                "dialogs": .int(report.dialogs),
            ],
            at: time, connection: connection)
        return entry
    }

    /// One row of the erasure register; returns its id.
    static func insertRegister(
        kind: String, id: String, reason: String?, messages: Int, revisions: Int, files: Int, at time: Int,
        connection: PostgresConnection
    ) async throws -> Int64 {
        let rows = try await connection.query(
            """
            INSERT INTO erasures (at, target_kind, target_id, reason, messages, revisions, files)
            VALUES (\(Int64(time)), \(kind), \(SQLiteText.cut(id)), \(SQLiteText.cut(reason)), \(Int64(messages)), \(Int64(revisions)),
                \(Int64(files)))
            RETURNING id
            """, logger: silent)
        for try await value in rows.decode(Int64.self) { return value }
        throw PostgresWriterError.noRowReturned
    }

    /// Appends an audit entry inside the caller's transaction, so that an act and its entry commit together:
    /// the same chain as ``appendAudit(action:detail:at:)``, `audit_log` locked against other appenders first.
    @discardableResult
    static func appendAudit(action: String, detail: JSONValue, at time: Int, connection: PostgresConnection)
        async throws -> AuditEntry
    {
        let text = detail.jsonString
        let action = SQLiteText.cut(action)
        try await connection.run("LOCK TABLE audit_log IN SHARE ROW EXCLUSIVE MODE")
        var previous: Data?
        let last = try await connection.query("SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1", logger: silent)
        for try await hash in last.decode(Data.self) { previous = hash }
        let hash = AuditEntry.hash(previous: previous, at: time, action: action, detail: text)
        let rows = try await connection.query(
            """
            INSERT INTO audit_log (at, action, detail, previous_hash, hash)
            VALUES (\(Int64(time)), \(action), \(text), \(previous), \(hash))
            RETURNING id
            """, logger: silent)
        for try await id in rows.decode(Int64.self) {
            return AuditEntry(id: id, at: time, action: action, detail: text, previousHash: previous, hash: hash)
        }
        throw PostgresWriterError.noRowReturned
    }
}

/// The attachment keys an erasure collects, and the files that nothing names once it is done.
enum AttachmentKeys {
    /// The keys of the attachments a stored `attachments` list names.
    static func of(_ json: String) -> [String] {
        guard json != "[]", let array = try? JSONValue(parsing: Array(json.utf8)).arrayValue else { return [] }
        return array.compactMap { try? Attachment(json: $0) }.compactMap(AttachmentKey.of)
    }

    /// Removes from `attachment_files` the keys no remaining message or revision names; returns the SHA-256 of
    /// each stored file no remaining row names (to remove from the store once the transaction commits).
    static func forgetUnreferenced(_ keys: Set<String>, connection: PostgresConnection) async throws -> [String] {
        guard !keys.isEmpty else { return [] }
        var stillNamed: Set<String> = []
        try await connection.forEachAttachmentList { list in
            for key in of(list) where keys.contains(key) { stillNamed.insert(key) }
        }
        var digests: [String] = []
        for key in keys.subtracting(stillNamed).sorted() {
            let removed = try await connection.query(
                "DELETE FROM attachment_files WHERE key = \(SQLiteText.cut(key)) RETURNING sha256",
                logger: PostgresArchive.silent)
            var digest: String?
            for try await value in removed.decode(String?.self) { digest = value }
            if let digest,
                try await !connection.exists("SELECT 1 FROM attachment_files WHERE sha256 = \(digest) LIMIT 1")
            {
                digests.append(digest)
            }
        }
        return digests
    }
}

extension PostgresConnection {
    /// Calls `body` with every stored `attachments` list that names a file: messages in `rowid` order, then
    /// revisions in `id` order (as SQLite reads them), ``PostgresFileIndexer/batch`` rows per statement.
    func forEachAttachmentList(_ body: (String) async throws -> Void) async throws {
        for (table, key) in [("messages", "rowid"), ("message_revisions", "id")] {
            var after = Int64.min
            while true {
                var lists: [(Int64, String)] = []
                let rows = try await query(
                    """
                    SELECT \(unescaped: key), attachments FROM \(unescaped: table)
                    WHERE attachments <> '[]' AND \(unescaped: key) > \(after)
                    ORDER BY \(unescaped: key) LIMIT \(Int64(PostgresFileIndexer.batch))
                    """, logger: PostgresArchive.silent)
                for try await row in rows.decode((Int64, String).self) { lists.append(row) }
                for (_, list) in lists { try await body(list) }
                guard let last = lists.last, lists.count == PostgresFileIndexer.batch else { break }
                after = last.0
            }
        }
    }
}
