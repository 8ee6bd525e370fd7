import Archive
import ArgumentParser
import Crawler
import Foundation
import Logging
import QuickBlox
import QuickBloxClient
import Search

/// `qbarchive crawl`: one backup run of a QuickBlox application into an archive.
struct CrawlCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "crawl",
        abstract: "Archive every dialog and message of a QuickBlox application (incremental, resumable).",
        discussion: """
            Safe to run from cron every few minutes: each run asks only for what is new or changed since the last \
            completed run, never marks anything read (mark_as_read=0), and holds a lock on the archive.

            Credentials come from flags, the environment (QB_ENDPOINT, QB_APP_ID, QB_AUTH_KEY, QB_AUTH_SECRET, \
            QB_LOGIN, QB_PASSWORD, QB_API_KEY) or --config FILE (the same names as KEY=VALUE lines). Prefer the \
            environment or a config file for secrets: flags show in process listings.

            Exit codes: 0 complete, 1 error, 2 usage, 3 partial (some dialogs, users' dialog lists in app scope or, \
            with --attachments files, some files failed after retries; the rest were archived), 10 archive unreadable, 11 locked by another crawl, \
            12 authentication failed, 130 interrupted.

            Examples:
              QB_ENDPOINT=http://127.0.0.1:8089 QB_APP_ID=1 QB_AUTH_KEY=emulator-auth-key \\
                QB_AUTH_SECRET=emulator-auth-secret QB_LOGIN=user1 QB_PASSWORD=password1 \\
                qbarchive crawl --archive chat.sqlite
              qbarchive crawl --archive all.sqlite --scope app --config /etc/qbarchive.conf --quiet
              qbarchive crawl --archive case-42.sqlite --scope app --where 'sender_id in (34, 45) date in 2024-03'
              qbarchive crawl --archive chat.sqlite --attachments files --attachment-max-bytes 500M

            On a PostgreSQL archive a whole crawl is a worker: crawls started on several hosts at once (or while \
            one runs) share the dialogs through leases, each prints its part (worker NAME ...) and the last to \
            finish also prints the whole crawl's line. A worker that dies gives its dialogs back after --lease. \
            --where, --dialog, --reconcile and --attachments files run alone: exit 11 while workers run, and \
            workers exit 11 while they run (docs/postgres.md, "Several crawl workers").

            --where makes a targeted crawl: the query goes to QuickBlox as /chat/Message filters, only matching \
            messages are fetched, and the dialogs' cursors do not move, so scheduled full runs are unaffected. \
            Terms QuickBlox cannot filter (words, or, not, logins, other fields) are refused with exit code 2.
            """
    )

    @Option(
        help:
            "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); created on the first run (or QB_ARCHIVE)."
    )
    var archive: String = ""
    @Option(help: "QuickBlox API base URL (QB_ENDPOINT).") var endpoint: String?
    @Option(help: "Application id (QB_APP_ID).") var appId: String?
    @Option(help: "Application auth key (QB_AUTH_KEY).") var authKey: String?
    @Option(help: "Application auth secret (QB_AUTH_SECRET).") var authSecret: String?
    @Option(help: "User login (QB_LOGIN).") var login: String?
    @Option(help: "User password (QB_PASSWORD).") var password: String?
    @Option(help: "API key for --scope app (QB_API_KEY).") var apiKey: String?
    @Option(help: "A KEY=VALUE file with the QB_* settings.") var config: String?
    @Option(help: "user: the logged-in user's dialogs; app: every user's, through an API key.")
    var scope: CrawlSettings.Scope = .user
    @Option(name: .customLong("dialog"), help: "Only this dialog (repeatable).") var dialogs: [String] = []
    @Option(
        help:
            "Dialogs crawled at once (in app scope, also users' dialog lists read at once). Once every dialog has started, a long one still running is read in parts on the freed places."
    ) var concurrency = 4
    @Option(help: "Client-side limit on requests per second (QuickBlox's lowest plan allows 80).") var maxRps = 50.0
    @Flag(
        help: ArgumentHelp(
            "Compare server counts with the archive, walk dialogs that differ, and record deletions.",
            discussion: """
                QuickBlox deletes per user unless the owner forces it. A message the reading view no longer \
                lists is recorded hidden for that user when another view still shows it, and tombstoned only \
                when no user who lists the dialog shows it (app scope). In user scope it is recorded hidden \
                for you: one view cannot prove a deletion. Exit 3 when a dialog's count still differs after \
                walking it again.
                """)) var reconcile = false
    @Option(
        help: """
            App scope, --reconcile: other users asked about messages the reading view no longer lists, \
            before they count as deleted for everyone (0: all).
            """) var recheckViews = 16
    @Option(
        name: .customLong("where"),
        help: ArgumentHelp(
            "A targeted crawl: only messages matching QUERY (or @NAME), sent to QuickBlox as filters.",
            discussion: "Only what QuickBlox can filter is accepted (see `qbarchive search --explain`).",
            valueName: "QUERY"))
    var whereQuery: String?
    @Option(help: "Where saved queries live (for --where @NAME).") var queries = "queries"
    @Option(
        help: ArgumentHelp(
            "What to keep of attachments' files: none, metadata (list them) or files (download them too).",
            discussion: """
                files downloads every listed file into a content-addressed store beside the archive \
                (ARCHIVE.files/sha256/ab/cdef…); a later run retries failed files and never downloads a stored one.
                """))
    var attachments: AttachmentOptions.Mode = .metadata
    @Option(help: ArgumentHelp("Files larger than this are recorded as too large (700M, 2G, ...).", valueName: "SIZE"))
    var attachmentMaxBytes = "4G"
    @Flag(help: "Also fetch attachment URLs on hosts other than QuickBlox's (off: recorded, not fetched).")
    var externalUrls = false
    @Option(help: "Downloads at once, apart from --concurrency.") var attachmentConcurrency = 2
    @Flag(help: "One JSON event per line (progress, warnings, summary).") var json = false
    @Flag(
        help:
            "Print nothing when the run succeeds (for cron); errors, and the summary of a run that did not succeed, go to standard error."
    )
    var quiet = false
    @Flag(help: "Skip TLS certificate checks (self-signed test servers only).") var insecure = false
    @Option(
        help: ArgumentHelp(
            "Abandon (and retry) a request whose connection stays silent this long (5s, 1m).", valueName: "DURATION"))
    var idleTimeout = "15s"
    @Option(
        help: ArgumentHelp(
            "PostgreSQL workers: how long a worker's claim on a dialog lasts without a heartbeat (3s to 1h).",
            discussion: """
                A worker heartbeats every third of it; a worker that dies gives its dialogs back to the others \
                after this long. See "Several crawl workers" in docs/postgres.md.
                """,
            valueName: "DURATION"))
    var lease = "60s"
    @Option(help: "PostgreSQL workers: this worker's name in summaries and the archive (default: HOST:PID).")
    var workerName: String?

    mutating func validate() throws {
        try resolveArchive(configFile: config)
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard recheckViews >= 0 else { throw ValidationError("--recheck-views must be 0 (all) or more") }
        guard attachmentConcurrency >= 1 else { throw ValidationError("--attachment-concurrency must be at least 1") }
        guard let bytes = ByteSize.parse(attachmentMaxBytes), bytes >= 1 else {
            throw ValidationError(
                "--attachment-max-bytes \(attachmentMaxBytes) is not a size (use 5000, 700M, 2G, ...)")
        }
        guard attachments == .files || (!externalUrls && attachmentMaxBytes == "4G" && attachmentConcurrency == 2)
        else {
            throw ValidationError(
                "--attachment-max-bytes, --external-urls and --attachment-concurrency apply to --attachments files")
        }
        guard maxRps > 0 else { throw ValidationError("--max-rps must be positive") }
        guard let idle = DurationText.seconds(idleTimeout), idle >= 1, idle <= 3600 else {
            throw ValidationError("--idle-timeout \(idleTimeout) is not a duration from 1s to 1h (5s, 30s, 2m)")
        }
        guard !(json && quiet) else { throw ValidationError("--json and --quiet cannot be combined") }
        guard !(reconcile && whereQuery != nil) else {
            throw ValidationError("--reconcile compares whole dialogs; it cannot be combined with --where")
        }
        guard let seconds = DurationText.seconds(lease), seconds >= 3, seconds <= 3600 else {
            throw ValidationError("--lease \(lease) is not a duration from 3s to 1h (30s, 2m)")
        }
        if let workerName, workerName.isEmpty || workerName.count > 200 {
            throw ValidationError("--worker-name must be 1 to 200 characters")
        }
    }

    /// Whether this crawl is a worker of a shared crawl: a whole crawl of a PostgreSQL archive. Crawls that
    /// must be alone (a part of the dialogs, a reconcile, file downloads) hold the archive's lock by themselves.
    var sharesCrawl: Bool {
        ArchiveLocation.isPostgres(archive) && whereQuery == nil && dialogs.isEmpty && !reconcile
            && attachments != .files
    }

    func run() async throws {
        let target = try whereQuery.map { try TargetedCrawl(query: $0, queries: queries) }
        let flags = [
            "QB_ENDPOINT": endpoint, "QB_APP_ID": appId, "QB_AUTH_KEY": authKey, "QB_AUTH_SECRET": authSecret,
            "QB_LOGIN": login, "QB_PASSWORD": password, "QB_API_KEY": apiKey,
        ].compactMapValues { $0 }
        let settings: CrawlSettings
        do {
            settings = try CrawlSettings.resolve(
                scope: scope, flags: flags, environment: ProcessInfo.processInfo.environment, configFile: config)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        let output = StandardStreams()
        let backend = try ArchiveLocation.backend(for: archive)  // a bad path or URL: said before the lock
        let (store, lock) = try await Self.openLocked(
            archive, backend: backend, worker: sharesCrawl, quiet: quiet, output: output)
        defer { lock.release() }
        var logger = Logger(label: "qbarchive.crawl")
        logger.logLevel = quiet || json ? .error : .warning
        var client = ClientConfiguration(endpoint: settings.endpoint, credentials: settings.credentials)
        client.maxRequestsPerSecond = maxRps
        client.transport.insecure = insecure
        client.transport.idleTimeout = .seconds(DurationText.seconds(idleTimeout) ?? 15)
        client.transport.userAgent = "qbarchive/\(QBArchiveVersion.current)"
        var options = CrawlOptions()
        options.scope = scope
        options.dialogIDs = dialogs
        options.concurrency = concurrency
        options.reconcile = reconcile
        options.recheckViews = recheckViews
        options.attachments.mode = attachments
        options.attachments.maxBytes = ByteSize.parse(attachmentMaxBytes) ?? options.attachments.maxBytes
        options.attachments.externalURLs = externalUrls
        options.attachments.concurrency = attachmentConcurrency
        if sharesCrawl {
            options.worker = WorkerOptions(
                name: workerName ?? "\(ProcessInfo.processInfo.hostName):\(getpid())",
                lease: DurationText.seconds(lease) ?? 60)
        }
        if let target {
            options.query = target.text
            options.messageFilters = target.pushdown.filters.map(\.queryItem)
            if !target.pushdown.dialogIDs.isEmpty {
                options.dialogIDs =
                    dialogs.isEmpty ? target.pushdown.dialogIDs : dialogs.filter(target.pushdown.dialogIDs.contains)
            }
        }
        let mode: CrawlReporter.Mode =
            json ? .json : quiet ? .silent : isatty(STDOUT_FILENO) == 0 ? .quiet : .terminal
        let reporter = CrawlReporter(mode: mode, write: output.out, writeError: output.error)
        let crawl = Crawl(
            client: QuickBloxClient(configuration: client, logger: logger), archive: store, options: options,
            logger: logger, events: reporter.handle)

        let summary: CrawlSummary
        do {
            summary = try await Interruption.run { try await crawl.run() }
        } catch let error as SharedCrawlError {
            // A worker that cannot join the crawl running on the archive: as locked, nothing was done.
            output.error("error: \(error.localizedDescription)\n")
            throw ExitCode(11)
        }
        reporter.finish(summary)
        if summary.exitCode != 0 { throw ExitCode(summary.exitCode) }
    }
}

extension CrawlSettings.Scope: ExpressibleByArgument {}
extension AttachmentOptions.Mode: ExpressibleByArgument {}
