import ArchiveSQL
import GRDB

extension SQLiteArchive {
    /// Records the start of a crawl run and returns its id for ``finishRun(_:status:counts:error:at:)``.
    ///
    /// The row is written at once, with status ``RunStatus/running``, so a run that dies leaves a
    /// trace for `status`.
    /// - Parameters:
    ///   - scope: What the run crawls (`user`, `app`, a dialog list), shown by `status`.
    ///   - query: The `--where` query of a targeted run, which fetches only matching messages; such a
    ///     run never counts for ``updatedSince(scope:)``, nor does one limited to some dialogs (``RunScope``).
    public func beginRun(scope: String?, query: String?, at time: Int) async throws
        -> Int64
    {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO runs (started_at, status, scope, query) VALUES (?, 'running', ?, ?)",
                arguments: [time, scope, query])
            return db.lastInsertedRowID
        }
    }

    /// Marks runs left `running` by a process that died as `interrupted` (their `ended_at` stays unknown).
    public func closeAbandonedRuns(reason: String, at time: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE runs SET status = 'interrupted', error = ? WHERE status = 'running'", arguments: [reason])
            return db.changesCount
        }
    }

    /// Brings the statistics roll-ups up to date (``StatsRollup``); SQLite has no row visibility to settle, the
    /// query compiler steers its plans, and the archive keeps no `sqlite_stat1` whose figures could go stale
    /// (``ArchiveWriter/settleAfterBulkChange()``).
    ///
    /// Then merges the word index's segments when the change left it cut into several of comparable size
    /// (``compactWordIndexIfFragmented()``), and folds the write-ahead log into the archive file (``foldLog()``).
    public func settleAfterBulkChange() async throws {
        _ = try await withSmallSorts { connection in
            try StatsRollup.refresh(connection) { try StatsShareWriter(db: connection.db).write($0) }
        }
        try await compactWordIndexIfFragmented()
        await foldLog()
    }

    /// Copies the write-ahead log into the archive file and truncates it to nothing.
    ///
    /// A crawl or an import lets the log grow up to the archive's size (1 GiB at most, ``CheckpointPolicy``), and
    /// SQLite removes it only when the last connection closes: while `serve` or another process keeps the archive
    /// open, the log would stay that large on disk. Best effort: a `TRUNCATE` checkpoint waits for readers of older
    /// snapshots up to the busy timeout, and when it cannot finish the log is still sound and the next
    /// checkpoint goes on from there.
    func foldLog() async {
        _ = try? await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }

    /// Every statistics roll-up recomputed from the messages (``StatsRollup/rebuild(_:writingShares:)``).
    public func rebuildStatistics() async throws -> Int {
        try await withSmallSorts { connection in
            try StatsRollup.rebuild(connection) { try StatsShareWriter(db: connection.db).write($0) }
        }
    }

    /// Runs a refresh of the roll-ups in a write transaction whose sorts spill to temporary files early.
    ///
    /// A refresh used to group every message of the stale dialogs (all of them after a first crawl or an import)
    /// in SQL; it still groups the stale dialogs' new shares into the sums. SQLite keeps each sort in memory up
    /// to the connection's `cache_size` before it spills, and the writer's is 64 MiB
    /// (``makeConfiguration(readOnly:)``), so a refresh at the end of a crawl lifted its peak memory by the size
    /// of its sorts, growing with the archive (measured in docs/performance.md, *Memory and scaling*). With a
    /// small cache meanwhile the sorts spill beyond it; the writer's cache is restored after.
    private func withSmallSorts<T: Sendable>(_ body: @escaping @Sendable (GRDBConnection) throws -> T)
        async throws -> T
    {
        try await database.writeOnGRDB { connection in
            try connection.db.execute(sql: "PRAGMA cache_size = \(Self.refreshCacheSize)")
            let result = Result { try body(connection) }
            try connection.db.execute(sql: "PRAGMA cache_size = \(Self.writerCacheSize)")
            return try result.get()
        }
    }

    /// Records how a run ended, with its tallies.
    ///
    /// - Throws: ``ArchiveError/unknownRun(_:)`` when `id` was not returned by ``beginRun(scope:query:at:)``.
    public func finishRun(
        _ id: Int64, status: RunStatus, counts: RunCounts, error: String?, at time: Int
    ) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE runs SET ended_at = ?, status = ?, dialogs = ?, messages_new = ?, messages_edited = ?,
                        messages_deleted = ?, requests = ?, retries = ?, bytes = ?, error = ?
                    WHERE id = ?
                    """,
                arguments: [
                    time, status.rawValue, counts.dialogs, counts.newMessages, counts.editedMessages,
                    counts.deletedMessages, counts.requests, counts.retries, counts.bytes, error, id,
                ])
            guard db.changesCount == 1 else { throw ArchiveError.unknownRun(id) }
        }
        if status != .interrupted { try await settleAfterBulkChange() }
    }

}
