import ArchiveStore
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
            /api/queries, POST /api/exports, /api/exports/NAME.

            Exit codes: 0 stopped by SIGTERM/SIGINT, 2 usage (unsafe address without a token, short token), \
            10 the archive is missing or not one, 13 the audit log cannot be written, 1 anything else.

            Examples:
              qbarchive serve --archive chat.sqlite                      # http://127.0.0.1:8080/
              QBARCHIVE_TOKEN=$(openssl rand -hex 24) qbarchive serve --archive chat.sqlite --host 0.0.0.0
            """
    )

    @Option(help: "The archive file.") var archive: String
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
    @Flag(help: "Log every request (default: start-up and errors only).") var verbose = false

    func run() async throws {
        var configuration = ServiceConfiguration(
            archivePath: archive, host: host, port: port,
            token: token ?? ProcessInfo.processInfo.environment["QBARCHIVE_TOKEN"].flatMap { $0.isEmpty ? nil : $0 },
            exportsDirectory: exports, queriesDirectory: queries, signingKeyPath: sign,
            toolVersion: QBArchiveVersion.current)
        configuration.allowedHosts = allowedHosts
        let service: ArchiveService
        do {
            service = try await ArchiveService(configuration: configuration)
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
