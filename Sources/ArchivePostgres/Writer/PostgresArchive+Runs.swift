import Archive
import PostgresNIO

extension PostgresArchive {
    /// Records the start of a crawl run (status `running`, written at once so a run that dies leaves a trace) and
    /// returns its id for ``finishRun(_:status:counts:error:at:)``.
    public func beginRun(scope: String?, query: String?, at time: Int) async throws -> Int64 {
        let rows = try await client.query(
            """
            INSERT INTO runs (started_at, status, scope, query)
            VALUES (\(Int64(time)), 'running', \(SQLiteText.cut(scope)), \(SQLiteText.cut(query)))
            RETURNING id
            """, logger: Self.silent)
        var id: Int64?
        for try await value in rows.decode(Int64.self) { id = value }
        guard let id else { throw PostgresWriterError.noRowReturned }
        return id
    }

    /// Marks runs left `running` by a process that died as `interrupted` (their `ended_at` stays unknown);
    /// returns how many.
    public func closeAbandonedRuns(reason: String, at time: Int) async throws -> Int {
        try await changes(
            """
            UPDATE runs SET status = 'interrupted', error = \(SQLiteText.cut(reason)) WHERE status = 'running'
            RETURNING id
            """)
    }

    /// Records how a run ended, with its tallies, then vacuums and analyzes what the run left unsettled (a
    /// first crawl: ``settleAfterBulkChange()``) — unless it was interrupted: a signal asks for a prompt exit,
    /// and autovacuum gets there later.
    ///
    /// - Throws: ``ArchiveError/unknownRun(_:)`` when `id` was not returned by ``beginRun(scope:query:at:)``.
    public func finishRun(_ id: Int64, status: RunStatus, counts: RunCounts, error: String?, at time: Int) async throws
    {
        let changed = try await changes(
            """
            UPDATE runs SET ended_at = \(Int64(time)), status = \(status.rawValue), dialogs = \(counts.dialogs),
                messages_new = \(counts.newMessages), messages_edited = \(counts.editedMessages),
                messages_deleted = \(counts.deletedMessages), requests = \(counts.requests),
                retries = \(counts.retries), bytes = \(counts.bytes), error = \(SQLiteText.cut(error))
            WHERE id = \(id)
            RETURNING id
            """)
        guard changed == 1 else { throw ArchiveError.unknownRun(id) }
        if status != .interrupted { try await settleAfterBulkChange() }
    }
}
