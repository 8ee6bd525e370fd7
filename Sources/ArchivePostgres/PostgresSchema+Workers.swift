extension PostgresSchema {
    /// Migration `v2-crawl-workers`: what several crawl workers need to share one crawl (issue 22;
    /// ``Archive/SharedCrawlArchive``). A SQLite archive has no counterpart: one crawl at a time holds its lock.
    ///
    /// - `crawls`: the crawl a `runs` row stands for, when workers share it: the window's `since` (the last
    ///   completed crawl's start, fixed when the crawl began so every worker walks the same `updated_at` pass)
    ///   and the listing, claimed by one worker at a time like a dialog.
    /// - `crawl_workers`: one row per worker that took part, its heartbeat and, once it left, its summary.
    /// - `crawl_leases`: one row per dialog of the crawl, in crawl order: which worker holds it until when,
    ///   and how it ended. Workers claim rows with `FOR UPDATE SKIP LOCKED` and never wait for each other.
    ///
    /// Every time here is the server's clock (`qbarchive_now()`), not a worker's: workers on hosts whose
    /// clocks differ agree on when a lease expires.
    static let crawlWorkers: [String] = [
        """
        CREATE FUNCTION qbarchive_now() RETURNS bigint LANGUAGE sql VOLATILE
        AS $$ SELECT floor(extract(epoch FROM clock_timestamp()))::bigint $$
        """,
        """
        CREATE TABLE crawls (
            run_id bigint PRIMARY KEY REFERENCES runs (id),
            scope text COLLATE "C" NOT NULL,
            since bigint,
            listing_worker bigint,
            listing_expires_at bigint,
            listed_at bigint,
            users bigint NOT NULL DEFAULT 0,
            dialogs bigint NOT NULL DEFAULT 0,
            listings_failed bigint NOT NULL DEFAULT 0)
        """,
        """
        CREATE TABLE crawl_workers (
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            run_id bigint NOT NULL REFERENCES runs (id),
            name text COLLATE "C" NOT NULL,
            started_at bigint NOT NULL,
            heartbeat_at bigint NOT NULL,
            expires_at bigint NOT NULL,
            ended_at bigint,
            status text COLLATE "C" NOT NULL
                CHECK (status IN ('running', 'complete', 'partial', 'failed', 'interrupted')),
            dialogs bigint NOT NULL DEFAULT 0,
            messages_new bigint NOT NULL DEFAULT 0,
            messages_edited bigint NOT NULL DEFAULT 0,
            requests bigint NOT NULL DEFAULT 0,
            retries bigint NOT NULL DEFAULT 0,
            bytes bigint NOT NULL DEFAULT 0,
            error text COLLATE "C")
        """,
        "CREATE INDEX crawl_workers_by_run ON crawl_workers (run_id)",
        """
        CREATE TABLE crawl_leases (
            run_id bigint NOT NULL REFERENCES runs (id),
            dialog_id text COLLATE "C" NOT NULL,
            position bigint NOT NULL,
            dialog text COLLATE "C" NOT NULL,
            reader bigint,
            listers text COLLATE "C" NOT NULL DEFAULT '[]',
            worker_id bigint REFERENCES crawl_workers (id),
            expires_at bigint,
            claims bigint NOT NULL DEFAULT 0,
            done_at bigint,
            error text COLLATE "C",
            PRIMARY KEY (run_id, dialog_id))
        """,
        "CREATE INDEX crawl_leases_open ON crawl_leases (run_id, position) WHERE done_at IS NULL",
    ]

    /// Migration `v3-listing-parts`: the users' dialog lists of an app-scope crawl, shared by its workers.
    ///
    /// `crawl_listing_parts` holds the crawl's users in order, a few per row; a worker claims a row like a
    /// dialog (`FOR UPDATE SKIP LOCKED`, a lease kept by its heartbeat), reads those users' dialog lists and
    /// stores them in `lists` (JSON). The worker holding the listing claim merges the parts in order and
    /// publishes the leases; the parts are deleted then.
    static let listingParts: [String] = [
        """
        CREATE TABLE crawl_listing_parts (
            run_id bigint NOT NULL REFERENCES runs (id),
            part bigint NOT NULL,
            readers text COLLATE "C" NOT NULL,
            worker_id bigint REFERENCES crawl_workers (id),
            expires_at bigint,
            claims bigint NOT NULL DEFAULT 0,
            lists text COLLATE "C",
            done_at bigint,
            PRIMARY KEY (run_id, part))
        """
    ]
}
