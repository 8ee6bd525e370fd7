import Archive
import ArchiveSQL
import PostgresNIO
import QuickBlox

/// Several crawl workers sharing one crawl (``Archive/SharedCrawlArchive``), on the tables of migration
/// `v2-crawl-workers`: the crawl is a `runs` row with a `crawls` row beside it, each dialog a `crawl_leases`
/// row that one worker holds until its lease expires.
///
/// Joining and leaving take a transaction-level advisory lock of their own, so two workers never both begin a
/// crawl, nor both think another is still at work when they leave together; claims never wait for each other
/// (`FOR UPDATE SKIP LOCKED`). Times are the server's (`qbarchive_now()`).
extension PostgresArchive: SharedCrawlArchive {
    /// The advisory lock key that serialises joining and leaving crawls ("qbarchiw"); the crawl lock and the
    /// migrations use others.
    static let coordinationKey: Int64 = 0x7162_6172_6368_6977

    public func joinCrawl(worker name: String, scope: String, lease: Int) async throws -> CrawlMembership {
        try await transaction { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.coordinationKey))")
            let now = try await connection.serverNow()
            var running: (Int64, Int64, Int64?, String)?
            let rows = try await connection.query(
                """
                SELECT c.run_id, r.started_at, c.since, c.scope FROM crawls c JOIN runs r ON r.id = c.run_id
                WHERE r.status = 'running' ORDER BY c.run_id DESC LIMIT 1
                """, logger: Self.silent)
            for try await row in rows.decode((Int64, Int64, Int64?, String).self) { running = row }
            if let (runID, startedAt, since, runningScope) = running {
                if try await connection.liveWorkers(runID: runID, except: nil, now: now) > 0 {
                    guard runningScope == scope else {
                        throw SharedCrawlError.otherScope(running: runningScope, asked: scope)
                    }
                    let worker = try await connection.insertWorker(runID: runID, name: name, now: now, lease: lease)
                    return CrawlMembership(
                        runID: runID, workerID: worker, startedAt: Int(startedAt), since: since.map { Int($0) },
                        began: false)
                }
                _ = try await connection.closeCrawl(runID: runID, now: now, leaver: nil)
            }
            // No live worker: a run still marked running belongs to a crawl whose processes died.
            let reason =
                "the crawl process ended without recording its end (killed, crashed or the machine stopped); "
                + "every page it stored was kept, and the next run went on from there"
            try await connection.run(
                "UPDATE runs SET status = 'interrupted', error = \(reason) WHERE status = 'running'")
            var since: Int64?
            // The statement every reader's ``updatedSince(scope:)`` runs, here in the transaction that begins.
            let last = try await connection.query(
                Self.updatedSinceStatement(scope: scope).postgresQuery(), logger: Self.silent)
            for try await value in last.decode(Int64?.self) { since = value }
            let runID = try await connection.single(
                Int64.self,
                "INSERT INTO runs (started_at, status, scope) VALUES (\(now), 'running', \(scope)) RETURNING id")
            try await connection.run(
                "INSERT INTO crawls (run_id, scope, since) VALUES (\(runID), \(scope), \(since))")
            let worker = try await connection.insertWorker(runID: runID, name: name, now: now, lease: lease)
            return CrawlMembership(
                runID: runID, workerID: worker, startedAt: Int(now), since: since.map { Int($0) }, began: true)
        }
    }

    public func claimListing(_ membership: CrawlMembership, lease: Int) async throws -> ListingClaim {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            let now = try await connection.serverNow()
            let rows = try await connection.query(
                """
                SELECT listing_worker, listing_expires_at, listed_at, users, dialogs, listings_failed
                FROM crawls WHERE run_id = \(membership.runID) FOR UPDATE
                """, logger: Self.silent)
            for try await (holder, expires, listed, users, dialogs, failed) in rows.decode(
                (Int64?, Int64?, Int64?, Int64, Int64, Int64).self)
            {
                if listed != nil {
                    return .published(users: Int(users), dialogs: Int(dialogs), listingsFailed: Int(failed))
                }
                if let holder, holder != membership.workerID, let expires, expires >= now { return .wait }
            }
            try await connection.run(
                """
                UPDATE crawls SET listing_worker = \(membership.workerID), listing_expires_at = \(now + Int64(lease))
                WHERE run_id = \(membership.runID)
                """)
            return .yours
        }
    }

    public func publishListing(
        _ membership: CrawlMembership, dialogs: [LeasedDialog], users: Int, listingsFailed: Int
    ) async throws {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            let listed = try await connection.single(
                Bool.self, "SELECT listed_at IS NOT NULL FROM crawls WHERE run_id = \(membership.runID) FOR UPDATE")
            // A lister whose claim expired while it listed and was listed again by another: the first one stands.
            guard !listed else { return }
            let now = try await connection.serverNow()
            for start in stride(from: 0, to: dialogs.count, by: 1000) {
                let chunk = dialogs[start..<min(start + 1000, dialogs.count)]
                let ids = chunk.map { SQLiteText.cut($0.dialogID) }
                let positions = chunk.indices.map { Int64($0) }
                let raws = chunk.map(\.raw.jsonString)
                let hasReader = chunk.map { $0.reader != nil }
                let readers = chunk.map { Int64($0.reader ?? 0) }
                let listers = chunk.map { JSONValue.array($0.listers.map { .int($0) }).jsonString }
                try await connection.run(
                    """
                    INSERT INTO crawl_leases (run_id, dialog_id, position, dialog, reader, listers)
                    SELECT \(membership.runID), id, position, dialog, CASE WHEN has_reader THEN reader END, listers
                    FROM unnest(\(ids)::text[], \(positions)::bigint[], \(raws)::text[], \(hasReader)::boolean[],
                        \(readers)::bigint[], \(listers)::text[])
                        AS t (id, position, dialog, has_reader, reader, listers)
                    ON CONFLICT (run_id, dialog_id) DO NOTHING
                    """)
            }
            try await connection.run("DELETE FROM crawl_listing_parts WHERE run_id = \(membership.runID)")
            try await connection.run(
                """
                UPDATE crawls SET listed_at = \(now), users = \(Int64(users)), dialogs = \(Int64(dialogs.count)),
                    listings_failed = \(Int64(listingsFailed)), listing_worker = NULL, listing_expires_at = NULL
                WHERE run_id = \(membership.runID)
                """)
        }
    }

    public func claimDialog(_ membership: CrawlMembership, lease: Int) async throws -> DialogClaim {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            let now = try await connection.serverNow()
            // The row is chosen once, in a materialized CTE. Written as a subquery joined in `FROM`, PostgreSQL
            // may run `LIMIT 1 … SKIP LOCKED` again for each row it joins (a nested loop's rescan, or the recheck
            // of a row just updated), and one statement then claimed every dialog left (seen on a second crawl).
            let rows = try await connection.query(
                """
                WITH next AS MATERIALIZED (
                    SELECT dialog_id, worker_id FROM crawl_leases
                    WHERE run_id = \(membership.runID) AND done_at IS NULL
                        AND (worker_id IS NULL OR expires_at < \(now))
                    ORDER BY position LIMIT 1 FOR UPDATE SKIP LOCKED)
                UPDATE crawl_leases l SET worker_id = \(membership.workerID), expires_at = \(now + Int64(lease)),
                    claims = l.claims + 1
                FROM next
                WHERE l.run_id = \(membership.runID) AND l.dialog_id = next.dialog_id
                RETURNING l.dialog_id, l.dialog, l.reader, l.listers, next.worker_id IS NOT NULL
                """, logger: Self.silent)
            var claimed: [DialogClaim] = []
            for try await (id, raw, reader, listers, takenOver) in rows.decode(
                (String, String, Int64?, String, Bool).self)
            {
                let leased = LeasedDialog(
                    dialogID: id, raw: try JSONValue(parsing: raw), reader: reader.map { Int($0) },
                    listers: (try JSONValue(parsing: listers).arrayValue ?? []).compactMap(\.lenientInt))
                claimed.append(.dialog(leased, takenOver: takenOver))
            }
            // More than one would be leases nobody works on until they expire: refuse, and roll the claim back.
            guard claimed.count <= 1 else { throw SharedCrawlError.claimedMoreThanOne(claimed.count) }
            if let claim = claimed.first { return claim }
            let open = try await connection.single(
                Int64.self, "SELECT count(*) FROM crawl_leases WHERE run_id = \(membership.runID) AND done_at IS NULL")
            return open == 0 ? .finished : .wait
        }
    }

    public func finishDialog(_ membership: CrawlMembership, dialogID: String, error: String?) async throws {
        try await changes(
            """
            UPDATE crawl_leases SET done_at = qbarchive_now(), error = \(SQLiteText.cut(error)), expires_at = NULL
            WHERE run_id = \(membership.runID) AND dialog_id = \(SQLiteText.cut(dialogID)) AND worker_id = \(membership.workerID)
                AND done_at IS NULL
            RETURNING dialog_id
            """)
    }

    public func releaseDialog(_ membership: CrawlMembership, dialogID: String) async throws {
        try await changes(
            """
            UPDATE crawl_leases SET worker_id = NULL, expires_at = NULL
            WHERE run_id = \(membership.runID) AND dialog_id = \(SQLiteText.cut(dialogID)) AND worker_id = \(membership.workerID)
                AND done_at IS NULL
            RETURNING dialog_id
            """)
    }

    public func heartbeat(_ membership: CrawlMembership, lease: Int) async throws {
        try await transaction { connection in
            try await connection.requireRunning(membership)
            let now = try await connection.serverNow()
            let expires = now + Int64(lease)
            try await connection.run(
                """
                UPDATE crawl_workers SET heartbeat_at = \(now), expires_at = \(expires)
                WHERE id = \(membership.workerID) AND status = 'running'
                """)
            try await connection.run(
                """
                UPDATE crawl_leases SET expires_at = \(expires)
                WHERE run_id = \(membership.runID) AND worker_id = \(membership.workerID) AND done_at IS NULL
                """)
            try await connection.run(
                """
                UPDATE crawls SET listing_expires_at = \(expires)
                WHERE run_id = \(membership.runID) AND listing_worker = \(membership.workerID) AND listed_at IS NULL
                """)
            try await connection.run(
                """
                UPDATE crawl_listing_parts SET expires_at = \(expires)
                WHERE run_id = \(membership.runID) AND worker_id = \(membership.workerID) AND done_at IS NULL
                """)
        }
    }

    /// Ends a worker's part in a crawl (and the crawl, when it was the last), then vacuums and analyzes what its
    /// pages left unsettled (``settleAfterBulkChange()``: a first crawl's searches otherwise read rows not yet
    /// known visible, planned from figures of an archive a fraction of its size) — unless the worker was
    /// interrupted: a signal asks for a prompt exit, and autovacuum gets there later.
    public func leaveCrawl(_ membership: CrawlMembership, report: CrawlWorkerReport) async throws
        -> SharedCrawlResult?
    {
        let result = try await leaveCrawlTransaction(membership, report: report)
        if report.status != .interrupted { try await settleAfterBulkChange() }
        return result
    }

    private func leaveCrawlTransaction(_ membership: CrawlMembership, report: CrawlWorkerReport) async throws
        -> SharedCrawlResult?
    {
        try await transaction { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.coordinationKey))")
            let now = try await connection.serverNow()
            let counts = report.counts
            try await connection.run(
                """
                UPDATE crawl_workers SET ended_at = \(now), status = \(report.status.rawValue),
                    dialogs = \(counts.dialogs), messages_new = \(counts.newMessages),
                    messages_edited = \(counts.editedMessages), requests = \(counts.requests),
                    retries = \(counts.retries), bytes = \(counts.bytes), error = \(SQLiteText.cut(report.error))
                WHERE id = \(membership.workerID)
                """)
            try await connection.run(
                """
                UPDATE crawl_leases SET worker_id = NULL, expires_at = NULL
                WHERE run_id = \(membership.runID) AND worker_id = \(membership.workerID) AND done_at IS NULL
                """)
            try await connection.run(
                """
                UPDATE crawls SET listing_worker = NULL, listing_expires_at = NULL
                WHERE run_id = \(membership.runID) AND listing_worker = \(membership.workerID)
                """)
            try await connection.run(
                """
                UPDATE crawl_listing_parts SET worker_id = NULL, expires_at = NULL
                WHERE run_id = \(membership.runID) AND worker_id = \(membership.workerID) AND done_at IS NULL
                """)
            let status = try await connection.single(
                String.self, "SELECT status FROM runs WHERE id = \(membership.runID)")
            guard status == RunStatus.running.rawValue,
                try await connection.liveWorkers(runID: membership.runID, except: membership.workerID, now: now) == 0
            else { return nil }
            return try await connection.closeCrawl(runID: membership.runID, now: now, leaver: report.status)
        }
    }
}

extension PostgresArchive {
    public func closeIfAbandoned(_ membership: CrawlMembership) async throws -> CrawlClosing {
        try await transaction { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(\(Self.coordinationKey))")
            let now = try await connection.serverNow()
            let status = try await connection.single(
                String.self, "SELECT status FROM runs WHERE id = \(membership.runID)")
            guard status == RunStatus.running.rawValue else { return .closedElsewhere }
            guard try await connection.liveWorkers(runID: membership.runID, except: nil, now: now) == 0 else {
                return .workersLeft
            }
            return .closed(try await connection.closeCrawl(runID: membership.runID, now: now, leaver: nil))
        }
    }
}

extension PostgresConnection {
    /// The server's clock, in unix seconds.
    func serverNow() async throws -> Int64 {
        try await single(Int64.self, "SELECT qbarchive_now()")
    }

    /// The one value a statement returns.
    func single<Value: PostgresDecodable & Sendable>(_ type: Value.Type, _ query: PostgresQuery) async throws
        -> Value
    {
        for try await value in try await self.query(query, logger: PostgresArchive.silent).decode(Value.self) {
            return value
        }
        throw PostgresWriterError.noRowReturned
    }

    /// Throws ``Archive/SharedCrawlError/crawlClosed(runID:)`` unless the worker's crawl is still running.
    func requireRunning(_ membership: CrawlMembership) async throws {
        let status = try await single(String.self, "SELECT status FROM runs WHERE id = \(membership.runID)")
        guard status == RunStatus.running.rawValue else { throw SharedCrawlError.crawlClosed(runID: membership.runID) }
    }

    /// Workers of a crawl still running whose heartbeat has not expired.
    func liveWorkers(runID: Int64, except worker: Int64?, now: Int64) async throws -> Int64 {
        try await single(
            Int64.self,
            """
            SELECT count(*) FROM crawl_workers
            WHERE run_id = \(runID) AND status = 'running' AND expires_at >= \(now) AND id IS DISTINCT FROM \(worker)
            """)
    }

    func insertWorker(runID: Int64, name: String, now: Int64, lease: Int) async throws -> Int64 {
        try await single(
            Int64.self,
            """
            INSERT INTO crawl_workers (run_id, name, started_at, heartbeat_at, expires_at, status)
            VALUES (\(runID), \(SQLiteText.cut(name)), \(now), \(now), \(now + Int64(lease)), 'running')
            RETURNING id
            """)
    }
}
