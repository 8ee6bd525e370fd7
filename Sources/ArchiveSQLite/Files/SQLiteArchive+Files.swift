import GRDB

extension SQLiteArchive {
    /// The file store beside this archive (`PATH.files`).
    public var fileStore: FileStore { FileStore(archivePath: path) }

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
