import Archive
import PostgresNIO

extension PostgresConnection {
    /// Closes a shared crawl: its run gets the tallies of every worker and a status for the whole crawl, and
    /// workers still marked running (they stopped heartbeating) are marked interrupted.
    ///
    /// The crawl is `complete` when every dialog was crawled, `partial` when some failed or (app scope) some
    /// users' lists could not be read, `interrupted` when dialogs were left (every worker stopped or died;
    /// the next crawl goes on from their cursors), and `failed` when they were left by a last worker that
    /// failed (refused credentials, say). `leaver`: the status of the worker closing it; `nil` when a new
    /// worker closes a crawl whose workers are all gone.
    func closeCrawl(runID: Int64, now: Int64, leaver: RunStatus?) async throws -> SharedCrawlResult {
        try await run(
            """
            UPDATE crawl_workers SET status = 'interrupted',
                error = 'stopped heartbeating (killed, crashed or cut off from the archive)'
            WHERE run_id = \(runID) AND status = 'running'
            """)
        let (startedAt, users, dialogs, listingsFailed, listed) = try await crawlFigures(runID)
        var counts = RunCounts(dialogs: Int(dialogs))
        var workers = 0
        let sums = try await query(
            """
            SELECT count(*), COALESCE(sum(messages_new), 0)::bigint, COALESCE(sum(messages_edited), 0)::bigint,
                COALESCE(sum(requests), 0)::bigint, COALESCE(sum(retries), 0)::bigint,
                COALESCE(sum(bytes), 0)::bigint
            FROM crawl_workers WHERE run_id = \(runID)
            """, logger: PostgresArchive.silent)
        for try await (count, new, edited, requests, retries, bytes) in sums.decode(
            (Int64, Int64, Int64, Int64, Int64, Int64).self)
        {
            workers = Int(count)
            counts.newMessages = Int(new)
            counts.editedMessages = Int(edited)
            counts.requests = Int(requests)
            counts.retries = Int(retries)
            counts.bytes = Int(bytes)
        }
        var failures: [String: String] = [:]
        var left = 0
        let leases = try await query(
            "SELECT dialog_id, done_at IS NOT NULL, error FROM crawl_leases WHERE run_id = \(runID)",
            logger: PostgresArchive.silent)
        for try await (dialog, done, error) in leases.decode((String, Bool, String?).self) {
            if !done { left += 1 } else if let error { failures[dialog] = error }
        }
        let status: RunStatus
        var error: String?
        if !listed || left > 0 {
            status = leaver == .failed ? .failed : .interrupted
            error =
                listed
                ? "\(left) of \(dialogs) dialogs were not crawled: every worker stopped before they were done"
                : "every worker stopped before the dialogs were listed"
        } else if !failures.isEmpty || listingsFailed > 0 {
            status = .partial
            error = failures.isEmpty ? nil : "\(failures.count) dialogs failed"
        } else {
            status = .complete
        }
        try await run(
            """
            UPDATE runs SET ended_at = \(now), status = \(status.rawValue), dialogs = \(counts.dialogs),
                messages_new = \(counts.newMessages), messages_edited = \(counts.editedMessages),
                requests = \(counts.requests), retries = \(counts.retries), bytes = \(counts.bytes),
                error = \(error)
            WHERE id = \(runID)
            """)
        return SharedCrawlResult(
            status: status, counts: counts, workers: workers, failures: failures, users: Int(users),
            listingsFailed: Int(listingsFailed), startedAt: Int(startedAt), endedAt: Int(now))
    }

    private func crawlFigures(_ runID: Int64) async throws -> (Int64, Int64, Int64, Int64, Bool) {
        let rows = try await query(
            """
            SELECT r.started_at, c.users, c.dialogs, c.listings_failed, c.listed_at IS NOT NULL
            FROM crawls c JOIN runs r ON r.id = c.run_id WHERE c.run_id = \(runID)
            """, logger: PostgresArchive.silent)
        for try await row in rows.decode((Int64, Int64, Int64, Int64, Bool).self) { return row }
        throw PostgresWriterError.noRowReturned
    }
}
