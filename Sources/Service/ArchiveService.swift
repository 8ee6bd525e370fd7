import Archive
import Foundation
import Hummingbird
import Logging
import QueryLanguage
import QuickBlox
import Search
import ServiceLifecycle
import Stats

/// `qbarchive serve`: the moderator web UI, the JSON API, health and metrics over one archive.
///
/// Data is read through read-only connections (WAL), so the service never blocks a running crawl and
/// cannot change what was archived; its one write is the audit trail. Build the application with
/// ``buildApplication(logger:onServerRunning:)`` (tests run it in-process on port 0) and run it with
/// `runService()`, which stops gracefully on SIGTERM and SIGINT.
public struct ArchiveService: Sendable {
    public let configuration: ServiceConfiguration
    /// Where searches, pages, stats and exports read: the read replica when there is one, else the archive.
    let archive: any ArchiveReader
    /// `/healthz`'s probes, each on a connection pool of its own so that health is answered however busy the
    /// archive is: the archive (`database`), then the read replica (`read_replica`) when there is one.
    let health: [DatabaseProbe]
    let audit: AuditTrail
    let metrics = ServiceMetrics()
    let sessions: SessionStore
    let pages: PageRenderer
    let stats = StatsCache()
    let limiter: WorkLimiter
    let exportGate = ExportGate()
    let logins: LoginThrottle

    /// Opens the archive through `backend` (the command picks it from the archive's location) and checks the
    /// configuration.
    ///
    /// The audit trail is written to ``ServiceConfiguration/archivePath``; reads go to
    /// ``ServiceConfiguration/readLocation`` when it is set, which must hold the same archive.
    ///
    /// - Parameter options: A backend for the audit trail's writer and `/healthz`'s readers, and how a
    ///   replica's lag is read (the command sets them for PostgreSQL).
    /// - Throws: ``ServiceSetupError`` for an unsafe or invalid configuration or a replica that cannot serve,
    ///   `ArchiveError` when the archive is missing or not one.
    public init(
        configuration: ServiceConfiguration, backend: any ArchiveBackend,
        options: ServiceBackendOptions = ServiceBackendOptions()
    ) async throws {
        try configuration.validate()
        self.configuration = configuration
        let upkeep = options.upkeep ?? backend
        let shownArchive = ServiceConfiguration.shown(configuration.archivePath)
        let writer: any ArchiveWriter
        do {
            writer = try await upkeep.openWriter(at: configuration.archivePath)
        } catch let error as ArchiveError {
            throw error
        } catch {
            throw ServiceSetupError.auditUnavailable(path: shownArchive, reason: Self.describe(error))
        }
        let timeout = configuration.limits.statementTimeout
        let backendName = DatabaseProbe.backendName(of: configuration.archivePath)
        var archiveProbe = DatabaseProbe(
            backend: backendName,
            reader: try await upkeep.openReader(at: configuration.archivePath, statementTimeout: .seconds(1)),
            lag: nil)
        if backendName == "sqlite" { archiveProbe.file = DatabaseProbe.FileIdentity.of(configuration.archivePath) }
        var probes = [archiveProbe]
        if let readLocation = configuration.readLocation {
            let shownReplica = ServiceConfiguration.shown(readLocation)
            do {
                archive = try await backend.openReader(at: readLocation, statementTimeout: timeout)
                probes.append(
                    DatabaseProbe(
                        backend: DatabaseProbe.backendName(of: readLocation),
                        reader: try await upkeep.openReader(at: readLocation, statementTimeout: .seconds(1)),
                        lag: options.replicationLag ?? { _ in nil }))
            } catch {
                throw ServiceSetupError.replicaUnavailable(location: shownReplica, reason: Self.describe(error))
            }
            let (primary, replica) = (try await writer.identity(), try await archive.identity())
            guard primary.id == replica.id else {
                throw ServiceSetupError.replicaMismatch(archive: shownArchive, replica: shownReplica)
            }
        } else {
            archive = try await backend.openReader(at: configuration.archivePath, statementTimeout: timeout)
        }
        health = probes
        limiter = WorkLimiter(
            capacity: configuration.limits.concurrentQueries, queueLimit: configuration.limits.queuedQueries)
        logins = LoginThrottle(failures: configuration.limits.loginFailures, window: configuration.limits.loginWindow)
        audit = AuditTrail(archive: writer)
        sessions = SessionStore(lifetime: configuration.sessionLifetime)
        pages = try PageRenderer(version: configuration.toolVersion, loginRequired: configuration.token != nil)
        do {
            _ = try await writer.appendAudit(
                action: "serve",
                detail: [
                    "host": .string(configuration.host), "port": .int(configuration.port),
                    "token": .bool(configuration.token != nil),
                ])
        } catch {
            throw ServiceSetupError.auditUnavailable(path: shownArchive, reason: Self.describe(error))
        }
        let folder = ExportsFolder(path: configuration.exportsDirectory, limits: configuration.limits)
        folder.removeLeftovers()
        let expired = folder.expire(now: ArchiveTime.now())
        if !expired.isEmpty {
            _ = try? await writer.appendAudit(
                action: "export_expire", detail: ["by": "service", "exports": .array(expired.map(JSONValue.string))])
        }
    }

    public func buildApplication(
        logger: Logger = Logger(label: "qbarchive.serve"),
        onServerRunning: @escaping @Sendable (String, Int) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: ServiceContext.self)
        router.add(middleware: RequestLogMiddleware())  // at `info`: shown by `serve --verbose`
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: CrossSiteMiddleware(configuration: configuration, pages: pages))
        router.add(
            middleware: AuthMiddleware(
                check: configuration.token.map(TokenCheck.init), sessions: sessions, configuration: configuration))
        router.add(middleware: WorkLimitMiddleware(limiter: limiter))
        registerOperations(on: router)
        registerAPI(on: router)
        registerExports(on: router)
        registerWeb(on: router)
        registerFiles(on: router)
        registerLogin(on: router)
        let configuration = configuration
        let limits = configuration.limits
        return Application(
            router: router,
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        RequestTimeoutHandler(
                            header: limits.headerTimeout, body: limits.bodyTimeout, idle: limits.idleTimeout)
                    ],
                    idleTimeout: .init(limits.idleTimeout))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                await onServerRunning(configuration.host, channel.localAddress?.port ?? configuration.port)
            },
            logger: logger)
    }

    /// An error's text for a setup message.
    static func describe(_ error: any Error) -> String {
        (error as? any LocalizedError)?.errorDescription ?? "\(error)"
    }

    /// The saved queries the JSON API and the web UI list, by one policy.
    ///
    /// Saved queries are optional: a server without their directory has none. A directory that holds a query
    /// that cannot be read is a fault to show, not to hide behind an empty list (its message names the query,
    /// never the directory or the file's content).
    func savedQueries() throws(ServiceError) -> [SavedQuery] {
        do {
            return try SavedQuery.all(in: configuration.queriesDirectory)
        } catch .noDirectory {
            return []
        } catch {
            throw ServiceError(.internalServerError, code: "saved_queries", message: error.localizedDescription)
        }
    }

    /// Parses a query from a request, resolving `@name` to a saved query.
    ///
    /// A saved-query name is only ever looked up among the listed queries (``SavedQuery/named(_:in:)``), and
    /// its errors name the query, never the directory or a file's content.
    ///
    /// - Returns: the query and the text it was parsed from (positions in errors refer to that text).
    func parse(_ text: String, zone: TimeZone = QueryDate.utc) throws -> (query: Query, text: String) {
        // Control characters and the length cap are checked on the text as sent, before `@name` is looked up.
        do {
            try QueryParser.checkText(Array(text))
        } catch {
            throw ServiceError.invalidQuery(error, query: text)
        }
        let source: String
        do {
            source = try SavedQuery.resolve(text, in: configuration.queriesDirectory)
        } catch {
            let code = if case .invalidName = error { "invalid_saved_query_name" } else { "unknown_saved_query" }
            var failure = ServiceError(.badRequest, code: code, message: error.localizedDescription)
            failure.queryFailure = .init(
                error: QueryError(position: 0, length: text.count, message: error.localizedDescription), query: text)
            throw failure
        }
        do {
            return (try QueryParser(now: ArchiveTime.now(), zone: zone).parse(source), source)
        } catch {
            throw ServiceError.invalidQuery(error, query: source)
        }
    }

    /// Runs archive work for a query, turning a late ``QueryError`` (an unknown login) into a 400.
    func answering<T>(_ text: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as QueryError {
            throw ServiceError.invalidQuery(error, query: text)
        }
    }
}
