import Archive
import Foundation
import QuickBlox

extension SQLArchiveReading {
    public func identity() async throws -> ArchiveIdentity {
        let location = location
        return try await sql.read { connection in
            guard
                let (text, createdAt) = try connection.fetchOne(
                    "SELECT archive_id, created_at FROM archive_meta WHERE id = 1", { ($0[0] as String, $0[1] as Int) }),
                let id = UUID(uuidString: text)
            else { throw ArchiveError.notAnArchive(path: location, reason: "archive_meta has no valid identity row") }
            return ArchiveIdentity(id: id, createdAt: createdAt)
        }
    }

    public func counts() async throws -> ArchiveCounts {
        try await sql.read { connection in
            func count(_ table: String, _ condition: String = "") throws -> Int {
                try connection.fetchInt("SELECT COUNT(*) FROM \(raw: table)\(raw: condition)") ?? 0
            }
            return ArchiveCounts(
                users: try count("users"), dialogs: try count("dialogs"),
                deletedDialogs: try count("dialogs", " WHERE deleted_at IS NOT NULL"), messages: try count("messages"),
                deletedMessages: try count("messages", " WHERE deleted_at IS NOT NULL"),
                revisions: try count("message_revisions"), runs: try count("runs"))
        }
    }

    public func messages(dialogID: String) async throws -> [ArchivedMessage] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT \(raw: Columns.message) FROM messages m WHERE m.dialog_id = \(dialogID) \
                ORDER BY m.date_sent, m.id
                """, Columns.message)
        }
    }

    public func liveMessageIDs(dialogID: String) async throws -> [String] {
        try await sql.read { connection in
            try connection.fetchAll(
                "SELECT id FROM messages WHERE dialog_id = \(dialogID) AND deleted_at IS NULL ORDER BY date_sent, id",
                { $0[0] as String })
        }
    }

    public func hiddenMessageIDs(dialogID: String, for user: Int) async throws -> [String] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT m.id FROM message_hides h JOIN messages m ON m.id = h.message_id \
                WHERE h.user_id = \(user) AND m.dialog_id = \(dialogID) AND m.deleted_at IS NULL ORDER BY m.id
                """, { $0[0] as String })
        }
    }

    public func liveDialogIDs() async throws -> [String] {
        try await sql.read { connection in
            try connection.fetchAll("SELECT id FROM dialogs WHERE deleted_at IS NULL ORDER BY id", { $0[0] as String })
        }
    }

    public func messageHistory(id: String) async throws -> MessageHistory? {
        try await sql.read { connection in
            guard
                let current = try connection.fetchOne(
                    "SELECT \(raw: Columns.message) FROM messages m WHERE m.id = \(id)", Columns.message)
            else { return nil }
            let revisions = try connection.fetchAll(
                """
                SELECT revision, text, attachments, custom, raw, updated_at, observed_at, superseded_at
                FROM message_revisions WHERE message_id = \(id) ORDER BY revision
                """
            ) { row in
                MessageRevision(
                    messageID: id, revision: row[0], text: row[1], attachmentsJSON: row[2], customJSON: row[3],
                    raw: row[4], updatedAt: row[5], observedAt: row[6], supersededAt: row[7])
            }
            return MessageHistory(current: current, revisions: revisions)
        }
    }

    public func membership(dialogID: String) async throws -> [MembershipPeriod] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT user_id, joined_observed_at, left_observed_at FROM dialog_membership
                WHERE dialog_id = \(dialogID) ORDER BY joined_observed_at, id
                """
            ) { row in
                MembershipPeriod(dialogID: dialogID, userID: row[0], joinedObservedAt: row[1], leftObservedAt: row[2])
            }
        }
    }

    // MARK: Crawls

    public func crawlState(dialogID: String) async throws -> CrawlState? {
        try await sql.read { connection in
            try connection.fetchOne(
                "SELECT \(raw: Self.crawlStateColumns) FROM crawl_state WHERE dialog_id = \(dialogID)",
                Self.crawlState)
        }
    }

    public func crawlStates() async throws -> [CrawlState] {
        try await sql.read { connection in
            try connection.fetchAll(
                "SELECT \(raw: Self.crawlStateColumns) FROM crawl_state ORDER BY dialog_id", Self.crawlState)
        }
    }

    static var crawlStateColumns: String {
        """
        dialog_id, watermark_date_sent, watermark_ids, checked_updated_at, last_success_at, last_error, \
        last_error_at, changed_at, server_counted_at
        """
    }

    static func crawlState(_ row: any SQLRow) -> CrawlState {
        let idsText: String = row[2]
        let ids = (try? JSONValue(parsing: idsText))?.arrayValue?.compactMap(\.stringValue) ?? []
        return CrawlState(
            dialogID: row[0],
            cursor: CrawlCursor(dateSent: row[1], idsAtDateSent: Set(ids), checkedUpdatedAt: row[3]),
            lastSuccessAt: row[4], lastError: row[5], lastErrorAt: row[6], changedAt: row[7], reconciledAt: row[8])
    }

    public func runs(limit: Int) async throws -> [RunRecord] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT id, scope, started_at, ended_at, status, dialogs, messages_new, messages_edited,
                    messages_deleted, requests, retries, bytes, error, query
                FROM runs ORDER BY id DESC LIMIT \(limit)
                """
            ) { row in
                RunRecord(
                    id: row[0], scope: row[1], startedAt: row[2], endedAt: row[3],
                    status: RunStatus(rawValue: row[4]) ?? .failed,
                    counts: RunCounts(
                        dialogs: row[5], newMessages: row[6], editedMessages: row[7], deletedMessages: row[8],
                        requests: row[9], retries: row[10], bytes: row[11]),
                    error: row[12], query: row[13])
            }
        }
    }

    public func updatedSince(scope: String) async throws -> Int? {
        try await sql.read { connection in try connection.fetchInt(Self.updatedSinceStatement(scope: scope)) }
    }

    /// ``updatedSince(scope:)`` as one statement, which a shared crawl on PostgreSQL also runs in the transaction
    /// that begins it.
    public static func updatedSinceStatement(scope: String) -> SQLFragment {
        """
        SELECT COALESCE(MAX(CASE WHEN status = 'complete' THEN started_at END), MIN(started_at)) FROM runs
        WHERE query IS NULL AND (scope IS NULL OR scope IN (\(SQLFragment.list(RunScope.covering(scope)))))
        """
    }

    // MARK: Files

    public func filesToFetch(after: Int64, limit: Int) async throws -> [FileToFetch] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT \(raw: Columns.file) FROM attachment_files
                WHERE id > \(after) AND status NOT IN ('ok', 'gone') ORDER BY id LIMIT \(limit)
                """
            ) { FileToFetch(id: $0[0], file: Columns.file($0)) }
        }
    }

    public func fileCounts() async throws -> FileCounts {
        try await sql.read { connection in
            var counts = FileCounts()
            for (status, count) in try connection.fetchAll(
                "SELECT status, COUNT(*) FROM attachment_files GROUP BY status", { ($0[0] as String, $0[1] as Int) })
            {
                if let status = FileStatus(rawValue: status) { counts.byStatus[status] = count }
            }
            if let (files, bytes) = try connection.fetchOne(
                """
                SELECT COUNT(*), COALESCE(SUM(size), 0) FROM (
                    SELECT sha256, MAX(size) AS size FROM attachment_files WHERE status = 'ok' GROUP BY sha256) s
                """, { ($0[0] as Int, $0[1] as Int) })
            {
                counts.storedFiles = files
                counts.storedBytes = bytes
            }
            return counts
        }
    }

    public func storedFiles() async throws -> [StoredFile] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT sha256, MAX(size) FROM attachment_files WHERE status = 'ok' AND sha256 IS NOT NULL
                GROUP BY sha256 ORDER BY sha256
                """
            ) { StoredFile(sha256: $0[0], size: $0[1]) }
        }
    }

    public func files(keys: [String]) async throws -> [String: ArchivedFile] {
        guard !keys.isEmpty else { return [:] }
        return try await sql.read { connection in try Columns.files(keys: keys, on: connection) }
    }

    public func storedFile(sha256: String) async throws -> ArchivedFile? {
        try await sql.read { connection in
            try connection.fetchOne(
                "SELECT \(raw: Columns.file) FROM attachment_files WHERE sha256 = \(sha256) AND status = 'ok' LIMIT 1",
                Columns.file)
        }
    }

    // MARK: Audit

    public func auditEntries() async throws -> [AuditEntry] {
        try await sql.read { connection in
            try connection.fetchAll("SELECT id, at, action, detail, previous_hash, hash FROM audit_log ORDER BY id") {
                AuditEntry(id: $0[0], at: $0[1], action: $0[2], detail: $0[3], previousHash: $0[4], hash: $0[5])
            }
        }
    }
}
