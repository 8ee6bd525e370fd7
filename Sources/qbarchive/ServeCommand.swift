import Archive
import ArchivePostgres
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Service

/// `qbarchive serve`: the moderator web UI and JSON API over an archive.
struct ServeCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the moderator web UI, the JSON API, /healthz and /metrics over an archive.",
        discussion: """
            Reads the archive through read-only connections, so it keeps serving while 'qbarchive crawl' \
            writes (WAL), and never changes archived data. Its one write is the audit log: every search, \
            view, export and login is recorded with who and when (check the chain with 'qbarchive audit verify').

            Listens on 127.0.0.1 by default. Any other address requires a token (at least 16 characters): \
            API clients send 'Authorization: Bearer TOKEN' (and X-QBArchive-User: NAME for the audit log); \
            people log in with a name and the token. Prefer QBARCHIVE_TOKEN in the environment to --token, \
            which other users can see in the process list. Put it behind a TLS reverse proxy to expose it \
            (docs/service.md).

            Pages: /search, /dialogs, /dialogs/ID?around=MESSAGE, /messages/ID, /dashboard.

            API: /api/search?q=, /api/dialogs, /api/dialogs/ID/messages, /api/messages/ID, /api/stats, \
            /api/queries, POST /api/exports, /api/exports/NAME (GET, DELETE).

            Limits (docs/service.md, "Threat model"): each archive read stops after --query-timeout (503 \
            query_timeout); --max-concurrent-queries read at once and --max-queued-queries wait, others get 429; \
            one export runs at a time (409), the exports folder is capped by --exports-max-bytes and \
            --exports-max-count (507) and the service's bundles are deleted after --exports-retention (or with \
            DELETE /api/exports/NAME); queries are capped at 4 KB; requests other sites make through a browser \
            are refused (403); failed logins are audited and, after 5 in a minute from one address, refused (429).

            PostgreSQL (docs/postgres.md, "Serving"): reads use a pool of at most --pool-size connections; \
            --read-url sends searches, pages, stats, metrics and exports to a read replica while the audit log \
            is written to --archive. /healthz reports each database (reachable, latency, a replica's lag) and \
            answers 503 when one does not answer.

            Exit codes: 0 stopped by SIGTERM/SIGINT, 2 usage (unsafe address without a token, short token, \
            --pool-size or --read-url that cannot apply), 10 the archive (or the replica) is missing, not one, or \
            not the same archive, 13 the audit log cannot be written, 1 anything else.

            Examples:
              qbarchive serve --archive chat.sqlite                      # http://127.0.0.1:8080/
              QBARCHIVE_TOKEN=$(openssl rand -hex 24) qbarchive serve --archive chat.sqlite --host 0.0.0.0
              qbarchive serve --archive postgresql://qbarchive@/chat --pool-size 20
              qbarchive serve --archive postgresql://qbarchive@db1/chat \\
                --read-url postgresql://qbarchive@db2/chat
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port (0 picks a free one).") var port = 8080
    @Option(help: "The access token (or QBARCHIVE_TOKEN). Required beyond loopback.") var token: String?
    @Option(help: "Where POST /api/exports writes bundles.") var exports = "exports"
    @Option(help: "The saved-query directory.") var queries = "queries"
    @Option(help: "A private key (qbarchive keygen) to sign export manifests with.") var sign: String?
    @Option(
        name: .customLong("allowed-host"),
        help: "A Host name to answer besides loopback names when there is no token (a reverse proxy's name).")
    var allowedHosts: [String] = []
    @Flag(
        help:
            "Behind a TLS reverse proxy: X-Forwarded-For names the client in the audit log and the session cookie is Secure."
    )
    var trustProxy = false
    @Option(help: ArgumentHelp("Stop an archive read after this long (a query, a page).", valueName: "duration"))
    var queryTimeout = "10s"
    @Option(help: "Requests that may read the archive at once (default: the number of cores, at least 2).")
    var maxConcurrentQueries: Int?
    @Option(help: "Requests that may wait for a turn; beyond, 429 (default: 4 × --max-concurrent-queries).")
    var maxQueuedQueries: Int?
    @Option(help: ArgumentHelp("The most bytes the exports folder may hold.", valueName: "size"))
    var exportsMaxBytes = "10G"
    @Option(help: "The most bundles the exports folder may hold.") var exportsMaxCount = 100
    @Option(
        help: ArgumentHelp("Delete bundles the service made once they are this old.", valueName: "duration"))
    var exportsRetention = "7d"
    @Option(help: ArgumentHelp("Close a connection that has not sent a request head by then.", valueName: "duration"))
    var headerTimeout = "10s"
    @Option(help: ArgumentHelp("Close a connection silent this long between requests.", valueName: "duration"))
    var idleTimeout = "60s"
    @Option(
        help: ArgumentHelp(
            "PostgreSQL: the most connections the service's reads open (default: the larger of "
                + "--max-concurrent-queries and 4, plus 2 for an export and a spare). The audit log and /healthz "
                + "use 2 more each. A SQLite archive has no pool: refused there.",
            valueName: "connections"))
    var poolSize: Int?
    @Option(
        help: ArgumentHelp(
            "PostgreSQL: a read replica of --archive (a hot standby). Searches, pages, stats and exports read "
                + "from it; the audit log is written to --archive. It must hold the same archive.",
            valueName: "postgresql-url"))
    var readURL: String?
    @Flag(help: "Log every request (default: start-up and errors only).") var verbose = false

    func limits() throws -> ServiceLimits {
        func duration(_ text: String, _ flag: String) throws -> Int {
            guard let seconds = DurationText.seconds(text), seconds > 0 else {
                throw ValidationError("\(flag) \(text) is not a duration such as 30s, 15m, 26h or 7d")
            }
            return seconds
        }
        var limits = ServiceLimits()
        limits.statementTimeout = .seconds(try duration(queryTimeout, "--query-timeout"))
        if let maxConcurrentQueries {
            limits.concurrentQueries = maxConcurrentQueries
            limits.queuedQueries = 4 * maxConcurrentQueries
        }
        if let maxQueuedQueries { limits.queuedQueries = maxQueuedQueries }
        guard let bytes = ByteSize.parse(exportsMaxBytes) else {
            throw ValidationError("--exports-max-bytes \(exportsMaxBytes) is not a size such as 500M or 10G")
        }
        limits.exportsMaxBytes = bytes
        limits.exportsMaxCount = exportsMaxCount
        limits.exportsRetention = try duration(exportsRetention, "--exports-retention")
        limits.headerTimeout = .seconds(try duration(headerTimeout, "--header-timeout"))
        limits.idleTimeout = .seconds(try duration(idleTimeout, "--idle-timeout"))
        return limits
    }

    mutating func validate() throws {
        try resolveArchive()
        let limits = try limits()
        _ = try readPoolSize(limits)
        try checkReadURL()
    }

    /// The connections of the reads' pool: `--pool-size`, or a default that lets every query allowed at once
    /// hold a connection, plus one for an export (which holds its connection for its whole run) and a spare.
    func readPoolSize(_ limits: ServiceLimits) throws -> Int {
        guard let poolSize else { return Self.defaultPoolSize(concurrentQueries: limits.concurrentQueries) }
        guard poolSize >= 1 else {
            throw ValidationError("--pool-size \(poolSize): the pool needs at least 1 connection")
        }
        // Another scheme (mysql://) is refused by the backend's choice, with its own message.
        guard PostgresLocation.isPostgres(archive) || archive.contains("://") else {
            throw ValidationError(
                "--pool-size sizes the connection pool of a PostgreSQL archive; \(archive) is a SQLite file, "
                    + "which has no pool (--max-concurrent-queries bounds its reads): leave --pool-size out")
        }
        return poolSize
    }

    /// The default of `--pool-size`.
    static func defaultPoolSize(concurrentQueries: Int) -> Int { max(concurrentQueries, 4) + 2 }

    /// The connections of the audit log's pool and of each `/healthz` probe's.
    static let upkeepPoolSize = 2

    /// Refuses a `--read-url` that is not a PostgreSQL URL, does not parse, or goes with a SQLite archive; the
    /// message shows no password.
    func checkReadURL() throws {
        guard let readURL else { return }
        guard PostgresLocation.isPostgres(readURL) else {
            throw ValidationError(
                "--read-url must be a postgresql:// URL of a read replica of the archive; got "
                    + ServiceConfiguration.shown(readURL))
        }
        do {
            _ = try PostgresLocation(parsing: readURL)
        } catch {
            throw ValidationError("--read-url: \(error.localizedDescription)")
        }
        guard PostgresLocation.isPostgres(archive) || archive.contains("://") else {
            throw ValidationError(
                "--read-url reads from a PostgreSQL replica; --archive \(archive) is a SQLite file (serve it "
                    + "without --read-url, or give --archive the primary's postgresql:// URL)")
        }
    }

    func run() async throws {
        var configuration = ServiceConfiguration(
            archivePath: archive, host: host, port: port,
            token: token ?? ProcessInfo.processInfo.environment["QBARCHIVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            exportsDirectory: exports, queriesDirectory: queries, signingKeyPath: sign,
            toolVersion: QBArchiveVersion.current)
        configuration.allowedHosts = allowedHosts
        configuration.trustProxy = trustProxy
        configuration.limits = try limits()
        configuration.readLocation = readURL
        let service: ArchiveService
        do {
            let (backend, options) = try backends(readPoolSize(configuration.limits))
            service = try await ArchiveService(configuration: configuration, backend: backend, options: options)
        } catch let error as ServiceSetupError {
            switch error {
            case .auditUnavailable: throw CommandFailure(error.localizedDescription, code: ExitCode(13))
            case .replicaUnavailable, .replicaMismatch:
                throw CommandFailure(error.localizedDescription, code: ExitCode(10))
            default: throw CommandFailure(error.localizedDescription, code: .usage)
            }
        } catch let error as ArchiveError {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        var logger = Logger(label: "qbarchive.serve")
        logger.logLevel = verbose ? .info : .warning
        let shown = host.contains(":") ? "[\(host)]" : host
        let served =
            ServiceConfiguration.shown(archive)
            + (readURL.map { ", reading from " + ServiceConfiguration.shown($0) } ?? "")
        let app = service.buildApplication(logger: logger) { _, port in
            FileHandle.standardOutput.write(
                Data("serving \(served) on http://\(shown):\(port)/ (Ctrl-C to stop)\n".utf8))
        }
        try await app.runService()
    }

    /// The backend for `--archive` (a PostgreSQL one with a read pool of `poolSize`) and, for PostgreSQL, the
    /// small pools of the audit log and `/healthz` and how a replica's lag is read.
    private func backends(_ poolSize: Int) throws -> (any ArchiveBackend, ServiceBackendOptions) {
        let backend = try ArchiveLocation.backend(for: archive)
        guard backend is PostgresBackend else { return (backend, ServiceBackendOptions()) }
        let options = ServiceBackendOptions(
            upkeep: PostgresBackend(maximumConnections: Self.upkeepPoolSize),
            replicationLag: { reader in try await (reader as? PostgresArchive)?.replicationLag() })
        return (PostgresBackend(maximumConnections: poolSize), options)
    }
}
