import Archive
import PostgresNIO

extension PostgresArchive {
    /// Records what fetching a file came to, as the SQLite archive does; attempts add up over runs.
    public func recordFetch(key: String, outcome: FetchOutcome, at time: Int) async throws {
        let key = SQLiteText.cut(key)
        let time = Int64(time)
        switch outcome {
        case .stored(let sha256, let size, let contentType, let source):
            try await changes(
                """
                UPDATE attachment_files SET status = 'ok', sha256 = \(SQLiteText.cut(sha256)), size = \(size),
                    content_type = \(SQLiteText.cut(contentType)), source = \(SQLiteText.cut(source)),
                    fetched_at = \(time), attempts = attempts + 1, last_error = NULL, last_attempt_at = \(time)
                WHERE key = \(key)
                """)
        case .tooLarge(let size, let limit):
            let what = size.map { "\($0) bytes" } ?? "larger"
            let error = "\(what), over --attachment-max-bytes \(limit)"
            try await changes(
                """
                UPDATE attachment_files SET status = 'too_large', size = \(size), last_error = \(error),
                    last_attempt_at = \(time)
                WHERE key = \(key)
                """)
        case .gone(let reason):
            try await changes(
                """
                UPDATE attachment_files SET status = 'gone', attempts = attempts + 1,
                    last_error = \(SQLiteText.cut(reason)), last_attempt_at = \(time)
                WHERE key = \(key)
                """)
        case .external:
            try await changes(
                """
                UPDATE attachment_files SET status = 'external',
                    last_error = 'on another host; not fetched without --external-urls', last_attempt_at = \(time)
                WHERE key = \(key)
                """)
        case .failed(let reason, let attempts):
            try await changes(
                """
                UPDATE attachment_files SET status = 'failed', attempts = attempts + \(attempts),
                    last_error = \(SQLiteText.cut(reason)), last_attempt_at = \(time)
                WHERE key = \(key)
                """)
        }
    }

    /// Marks the files stored under these hashes as not downloaded, so the next fetching run gets them again
    /// (`verify-store --requeue`); returns how many attachment keys were requeued.
    @discardableResult
    public func requeueFiles(sha256: [String]) async throws -> Int {
        guard !sha256.isEmpty else { return 0 }
        let hashes = sha256.map(SQLiteText.cut)
        return try await changes(
            """
            UPDATE attachment_files SET status = 'listed', sha256 = NULL, size = NULL, fetched_at = NULL,
                last_error = 'requeued: the stored file was missing or corrupt'
            WHERE sha256 = ANY(\(hashes)) AND status = 'ok'
            RETURNING id
            """)
    }

    /// Records that pages are being written without the file index (`crawl --attachments none`).
    public func markFilesUnindexed() async throws {
        try await changes("UPDATE archive_meta SET files_unindexed = 1")
    }

    /// Lists the files of every archived message and revision when a `--attachments none` run skipped some, in
    /// one transaction.
    ///
    /// - Returns: the messages and revisions re-read, or `nil` when the index was complete.
    @discardableResult
    public func indexFilesIfNeeded(at time: Int) async throws -> Int? {
        try await transaction { connection in
            let pending = try await connection.ints("SELECT files_unindexed FROM archive_meta WHERE id = 1")
            guard pending.first.map({ $0 != 0 }) == true else { return nil }
            let read = try await PostgresFileIndexer(connection: connection, time: time).indexAll()
            try await connection.run("UPDATE archive_meta SET files_unindexed = 0")
            return read
        }
    }
}
