import Archive
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import Service

/// `qbarchive serve`: the moderator web UI and JSON API over an archive.
struct ServeCommand: AsyncParsableCommand {
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

            Exit codes: 0 stopped by SIGTERM/SIGINT, 2 usage (unsafe address without a token, short token), \
            10 the archive is missing or not one, 13 the audit log cannot be written, 1 anything else.

            Examples:
              qbarchive serve --archive chat.sqlite                      # http://127.0.0.1:8080/
              QBARCHIVE_TOKEN=$(openssl rand -hex 24) qbarchive serve --archive chat.sqlite --host 0.0.0.0
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md).") var archive: String
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

    func validate() throws {
        _ = try limits()
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
        let service: ArchiveService
        do {
            service = try await ArchiveService(
                configuration: configuration, backend: try ArchiveLocation.backend(for: archive))
        } catch let error as ServiceSetupError {
            if case .auditUnavailable = error { throw CommandFailure(error.localizedDescription, code: ExitCode(13)) }
            throw CommandFailure(error.localizedDescription, code: .usage)
        } catch let error as ArchiveError {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        var logger = Logger(label: "qbarchive.serve")
        logger.logLevel = verbose ? .info : .warning
        let shown = host.contains(":") ? "[\(host)]" : host
        let app = service.buildApplication(logger: logger) { _, port in
            FileHandle.standardOutput.write(
                Data("serving \(archive) on http://\(shown):\(port)/ (Ctrl-C to stop)\n".utf8))
        }
        try await app.runService()
    }
}
