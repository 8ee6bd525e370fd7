import Foundation
import GRDB

extension SQLiteArchive {
    /// The columns of ``ArchivedMessage``, in the order ``archivedMessage(row:)`` reads them.
    static let messageColumns = """
        m.id, m.dialog_id, m.sender_id, m.recipient_id, m.date_sent, m.created_at, m.updated_at, m.text,
        m.attachments, m.custom, m.raw, m.first_seen_at, m.last_seen_at, m.edited, m.deleted_at
        """

    /// The archive's id and creation time.
    public func identity() async throws -> ArchiveIdentity {
        try await reading { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT archive_id, created_at FROM archive_meta WHERE id = 1"),
                let id = UUID(uuidString: row["archive_id"])
            else {
                throw ArchiveError.notAnArchive(path: self.path, reason: "archive_meta has no valid identity row")
            }
            return ArchiveIdentity(id: id, createdAt: row["created_at"])
        }
    }

    /// Row counts of the main tables.
    public func counts() async throws -> ArchiveCounts {
        try await reading { db in
            func count(_ sql: String) throws -> Int { try Int.fetchOne(db, sql: sql) ?? 0 }
            return ArchiveCounts(
                users: try count("SELECT COUNT(*) FROM users"),
                dialogs: try count("SELECT COUNT(*) FROM dialogs"),
                deletedDialogs: try count("SELECT COUNT(*) FROM dialogs WHERE deleted_at IS NOT NULL"),
                messages: try count("SELECT COUNT(*) FROM messages"),
                deletedMessages: try count("SELECT COUNT(*) FROM messages WHERE deleted_at IS NOT NULL"),
                revisions: try count("SELECT COUNT(*) FROM message_revisions"),
                runs: try count("SELECT COUNT(*) FROM runs"))
        }
    }

    /// About how many messages the archive holds, in constant time (the largest rowid: rows are never
    /// deleted, so it is exact unless a write was rolled back).
    public func messageCountEstimate() async throws -> Int {
        try await reading { db in try Int.fetchOne(db, sql: "SELECT MAX(rowid) FROM messages") ?? 0 }
    }

    /// A value that changes whenever archived data may have: for caches of derived figures.
    ///
    /// Read in constant time (the largest rowids and the latest run), unlike ``counts()``, which scans:
    /// messages and revisions are only ever appended, and every other change (edits of read marks,
    /// tombstones, users, dialogs) happens inside a crawl run, whose row changes when it starts and ends;
    /// an import appends messages.
    public func changeMarker() async throws -> String {
        try await reading { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT MAX(rowid) FROM messages), (SELECT MAX(rowid) FROM message_revisions),
                           (SELECT MAX(rowid) FROM users), (SELECT COUNT(*) FROM dialogs),
                           (SELECT id || ':' || status || ':' || COALESCE(ended_at, '') FROM runs
                            ORDER BY id DESC LIMIT 1)
                    """)
            return (0..<5).map { index in row.flatMap { $0[index] as DatabaseValue? }?.description ?? "-" }
                .joined(separator: "/")
        }
    }

    /// The archive file and its WAL, in bytes.
    public func storageBytes() async throws -> Int? {
        [path, path + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            .reduce(0, +)
    }

    /// A dialog's messages in `(date_sent, id)` order, the order QuickBlox pages them; tombstoned ones included.
    public func messages(dialogID: String) async throws -> [ArchivedMessage] {
        try await reading { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(Self.messageColumns) FROM messages m WHERE m.dialog_id = ? ORDER BY m.date_sent, m.id",
                arguments: [dialogID]
            ).map(Self.archivedMessage(row:))
        }
    }

    /// The ids of a dialog's messages not tombstoned, in `(date_sent, id)` order: what a reconcile
    /// compares with the server's list.
    public func liveMessageIDs(dialogID: String) async throws -> [String] {
        try await reading { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT id FROM messages WHERE dialog_id = ? AND deleted_at IS NULL ORDER BY date_sent, id
                    """,
                arguments: [dialogID])
        }
    }

    /// The ids of the dialogs not tombstoned: what a reconcile compares with the server's dialog list.
    public func liveDialogIDs() async throws -> [String] {
        try await reading { db in
            try String.fetchAll(db, sql: "SELECT id FROM dialogs WHERE deleted_at IS NULL ORDER BY id")
        }
    }

    /// A message with its earlier versions, or `nil` when the archive does not have it.
    public func messageHistory(id: String) async throws -> MessageHistory? {
        try await reading { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Self.messageColumns) FROM messages m WHERE m.id = ?", arguments: [id])
            else { return nil }
            let revisions = try Row.fetchAll(
                db,
                sql: """
                    SELECT revision, text, attachments, custom, raw, updated_at, observed_at, superseded_at
                    FROM message_revisions WHERE message_id = ? ORDER BY revision
                    """,
                arguments: [id]
            ).map { revision in
                MessageRevision(
                    messageID: id, revision: revision["revision"], text: revision["text"],
                    attachmentsJSON: revision["attachments"], customJSON: revision["custom"], raw: revision["raw"],
                    updatedAt: revision["updated_at"], observedAt: revision["observed_at"],
                    supersededAt: revision["superseded_at"])
            }
            return MessageHistory(current: Self.archivedMessage(row: row), revisions: revisions)
        }
    }

    static func archivedMessage(row: Row) -> ArchivedMessage {
        ArchivedMessage(
            id: row[0], dialogID: row[1], senderID: row[2], recipientID: row[3], dateSent: row[4],
            createdAt: row[5], updatedAt: row[6], text: row[7], attachmentsJSON: row[8], customJSON: row[9],
            raw: row[10], firstSeenAt: row[11], lastSeenAt: row[12], edited: row[13], deletedAt: row[14])
    }
}
