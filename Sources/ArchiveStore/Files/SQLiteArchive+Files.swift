import GRDB

extension SQLiteArchive {
    /// Every column of `attachment_files`, in ``ArchivedFile``'s order.
    static let fileColumns = """
        id, key, uid, blob_id, url, name, type, declared_size, declared_type, status, sha256, size, content_type,
        source, fetched_at, attempts, last_error, first_seen_at
        """

    static func archivedFile(_ row: Row) -> ArchivedFile {
        ArchivedFile(
            key: row[1], uid: row[2], blobID: row[3], url: row[4], name: row[5], type: row[6], declaredSize: row[7],
            declaredContentType: row[8], status: FileStatus(rawValue: row[9]) ?? .listed, sha256: row[10],
            size: row[11], contentType: row[12], source: row[13], fetchedAt: row[14], attempts: row[15],
            lastError: row[16], firstSeenAt: row[17])
    }

    /// The file store beside this archive (`PATH.files`).
    public var fileStore: FileStore { FileStore(archivePath: path) }

    /// Files a fetching run should consider, in the order they were first referenced: all but the stored
    /// and the gone, after row `after` (a run walks forward, so files referenced while it runs come after).
    ///
    /// - Returns: each file with its row id, to pass back as `after` for the next batch.
    public func filesToFetch(after: Int64, limit: Int) async throws -> [FileToFetch] {
        try await reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.fileColumns) FROM attachment_files
                    WHERE id > ? AND status NOT IN ('ok', 'gone') ORDER BY id LIMIT ?
                    """, arguments: [after, limit]
            ).map { FileToFetch(id: $0[0], file: Self.archivedFile($0)) }
        }
    }

    /// Records what fetching a file came to. Attempts add up over runs.
    public func recordFetch(key: String, outcome: FetchOutcome, at time: Int) async throws {
        try await pool.write { db in
            let sql: String
            let arguments: StatementArguments
            switch outcome {
            case .stored(let sha256, let size, let contentType, let source):
                sql = """
                    UPDATE attachment_files SET status = 'ok', sha256 = ?, size = ?, content_type = ?, source = ?,
                        fetched_at = ?, attempts = attempts + 1, last_error = NULL, last_attempt_at = ?
                    WHERE key = ?
                    """
                arguments = [sha256, size, contentType, source, time, time, key]
            case .tooLarge(let size, let limit):
                sql = """
                    UPDATE attachment_files SET status = 'too_large', size = ?, last_error = ?, last_attempt_at = ?
                    WHERE key = ?
                    """
                let what = size.map { "\($0) bytes" } ?? "larger"
                arguments = [size, "\(what), over --attachment-max-bytes \(limit)", time, key]
            case .gone(let reason):
                sql = """
                    UPDATE attachment_files SET status = 'gone', attempts = attempts + 1, last_error = ?,
                        last_attempt_at = ?
                    WHERE key = ?
                    """
                arguments = [reason, time, key]
            case .external:
                sql = """
                    UPDATE attachment_files SET status = 'external',
                        last_error = 'on another host; not fetched without --external-urls', last_attempt_at = ?
                    WHERE key = ?
                    """
                arguments = [time, key]
            case .failed(let reason, let attempts):
                sql = """
                    UPDATE attachment_files SET status = 'failed', attempts = attempts + ?, last_error = ?,
                        last_attempt_at = ?
                    WHERE key = ?
                    """
                arguments = [attempts, reason, time, key]
            }
            try db.execute(sql: sql, arguments: arguments)
        }
    }

    /// Files by status, and the distinct stored files and their bytes.
    public func fileCounts() async throws -> FileCounts {
        try await reading { db in
            var counts = FileCounts()
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) FROM attachment_files GROUP BY status") {
                if let status = FileStatus(rawValue: row[0]) { counts.byStatus[status] = row[1] }
            }
            if let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT COUNT(*), COALESCE(SUM(size), 0) FROM (
                        SELECT sha256, MAX(size) AS size FROM attachment_files WHERE status = 'ok' GROUP BY sha256)
                    """)
            {
                counts.storedFiles = row[0]
                counts.storedBytes = row[1]
            }
            return counts
        }
    }

    /// The distinct stored files, by SHA-256, with their recorded sizes (for `verify-store`).
    public func storedFiles() async throws -> [StoredFile] {
        try await reading { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT sha256, MAX(size) FROM attachment_files WHERE status = 'ok' AND sha256 IS NOT NULL
                    GROUP BY sha256 ORDER BY sha256
                    """
            ).map { StoredFile(sha256: $0[0], size: $0[1]) }
        }
    }

    /// Marks the files stored under these hashes as not downloaded, so the next fetching run gets them again
    /// (`verify-store --requeue` after finding them missing or corrupt).
    ///
    /// - Returns: how many attachment keys were requeued.
    @discardableResult
    public func requeueFiles(sha256: [String]) async throws -> Int {
        guard !sha256.isEmpty else { return 0 }
        return try await pool.write { db in
            var changed = 0
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE attachment_files SET status = 'listed', sha256 = NULL, size = NULL, fetched_at = NULL,
                        last_error = 'requeued: the stored file was missing or corrupt'
                    WHERE sha256 = ? AND status = 'ok'
                    """)
            for hash in sha256 {
                try statement.execute(arguments: [hash])
                changed += db.changesCount
            }
            return changed
        }
    }

    /// The recorded files for these keys (attachments of messages being exported or shown).
    public func files(keys: [String]) async throws -> [String: ArchivedFile] {
        guard !keys.isEmpty else { return [:] }
        return try await reading { db in try Self.files(keys: keys, db) }
    }

    static func files(keys: some Collection<String>, _ db: Database) throws -> [String: ArchivedFile] {
        var found: [String: ArchivedFile] = [:]
        let statement = try db.cachedStatement(sql: "SELECT \(fileColumns) FROM attachment_files WHERE key = ?")
        for key in Set(keys) {
            if let row = try Row.fetchOne(statement, arguments: [key]) { found[key] = archivedFile(row) }
        }
        return found
    }

    /// A stored file by its SHA-256: the first record that has it (name and content type for serving).
    public func storedFile(sha256: String) async throws -> ArchivedFile? {
        try await reading { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Self.fileColumns) FROM attachment_files WHERE sha256 = ? AND status = 'ok' LIMIT 1",
                arguments: [sha256]
            ).map(Self.archivedFile)
        }
    }

    /// Records that pages are being written without the file index (`crawl --attachments none`).
    public func markFilesUnindexed() async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE archive_meta SET files_unindexed = 1") }
    }

    /// Indexes the files of every archived message when a `--attachments none` run skipped some.
    ///
    /// - Returns: the messages and revisions re-read, or `nil` when the index was complete.
    @discardableResult
    public func indexFilesIfNeeded(at time: Int) async throws -> Int? {
        try await pool.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT files_unindexed FROM archive_meta") == true else { return nil }
            let read = try FileIndexer.indexAll(db, time: time)
            try db.execute(sql: "UPDATE archive_meta SET files_unindexed = 0")
            return read
        }
    }
}
