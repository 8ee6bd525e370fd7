import Archive
import ArchiveSQL
import Foundation
import Logging
import PostgresNIO

/// A qbarchive archive in a PostgreSQL database: the first slice of issue 22.
///
/// `PostgresArchive` owns a pooled postgres-nio `PostgresClient` (a new connection costs tens of
/// milliseconds; every statement leases one from the pool) and runs the client in a task of its own, which
/// ``close()`` cancels. ``open(_:files:statementTimeout:readOnly:maximumConnections:logger:now:)`` applies the
/// pending migrations (``PostgresMigrator``, serialised between processes by an advisory lock) and writes the
/// archive's identity once.
///
/// Every read is the shared SQL reader's (``ArchiveSQL/SQLArchiveReading``) through ``PostgresDialect``, run by
/// ``PostgresSQLDatabase``; only what PostgreSQL alone can answer (its size, a change marker) is written here.
///
/// ```swift
/// let archive = try await PostgresArchive.open(PostgresLocation(parsing: "postgresql://qbarchive@/chat"))
/// let identity = try await archive.identity()
/// await archive.close()
/// ```
public final class PostgresArchive: SQLArchiveReading {
    /// Where the archive is.
    public let database: PostgresLocation
    /// The migrations this open applied: none when the schema was up to date, or another process applied them.
    public let migratedOnOpen: [String]
    /// Where the attachment files of this archive are stored (a directory: PostgreSQL holds their records).
    public let fileStore: FileStore
    let client: PostgresClient
    let logger: Logger
    /// How long one read may run before the server stops it; `nil`: no limit.
    let statementTimeout: Duration?
    private let running: Task<Void, Never>
    private let migrator: PostgresMigrator

    private init(
        database: PostgresLocation, migratedOnOpen: [String], fileStore: FileStore, client: PostgresClient,
        running: Task<Void, Never>, logger: Logger, statementTimeout: Duration?
    ) {
        self.database = database
        self.migratedOnOpen = migratedOnOpen
        self.fileStore = fileStore
        self.client = client
        self.running = running
        self.logger = logger
        self.statementTimeout = statementTimeout
        self.migrator = PostgresSchema.migrator
    }

    /// The archive's URL, its password never shown.
    public var location: String { database.description }

    /// How the shared SQL reads run on this archive (``ArchiveSQL/SQLArchiveReading``).
    public var sql: any SQLDatabase {
        PostgresSQLDatabase(client: client, logger: logger, statementTimeout: statementTimeout)
    }

    deinit {
        running.cancel()
    }

    /// Connects to the archive at `location`, applies the pending migrations and writes the archive's identity
    /// (a random id, created at `now`) unless it has one. Concurrent opens of one database are safe: one
    /// applies each migration and one writes the identity; all return the same archive.
    ///
    /// - Throws: ``ArchiveError/notAnArchive(path:reason:)`` when the database holds tables but was never a
    ///   qbarchive archive (nothing is created in it), ``ArchiveError/newerFormat(path:)`` when a newer
    ///   qbarchive migrated it, and the server's or the connection's error otherwise.
    ///
    /// - Parameters:
    ///   - files: Where attachment files go; by default `DATABASE.files` in the working directory.
    ///   - statementTimeout: Stops each read that runs longer (the service's bound on a request).
    ///   - readOnly: Opens an archive that must already be complete: nothing is created or migrated, a
    ///     database without an archive is ``ArchiveError/missing(path:)`` and one a newer schema is pending for
    ///     is ``ArchiveError/needsUpgrade(path:)``, as a SQLite archive opened read-only.
    ///   - maximumConnections: The most connections the pool opens at once (postgres-nio's
    ///     `maximumConnections`); `nil`: postgres-nio's default (20). A read or write past it waits for a
    ///     connection to be free. Opened as needed, never more than the work at hand.
    public static func open(
        _ location: PostgresLocation, files: FileStore? = nil, statementTimeout: Duration? = nil,
        readOnly: Bool = false, maximumConnections: Int? = nil, logger: Logger = silent, now: Int = ArchiveTime.now()
    ) async throws -> PostgresArchive {
        var configuration = location.clientConfiguration()
        if let maximumConnections { configuration.options.maximumConnections = max(1, maximumConnections) }
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let running = Task { await client.run() }
        do {
            var applied: [String] = []
            if readOnly {
                try await reachable(location) {
                    try await refuseIncomplete(client, location: location, logger: logger)
                }
            } else {
                try await reachable(location) {
                    try await refuseForeignDatabase(client, location: location, logger: logger)
                }
                applied = try await PostgresSchema.migrator.migrate(
                    client, location: location.description, logger: logger)
                try await writeIdentity(client, now: now, logger: logger)
            }
            return PostgresArchive(
                database: location, migratedOnOpen: applied,
                fileStore: files ?? FileStore(archivePath: location.database), client: client, running: running,
                logger: logger, statementTimeout: statementTimeout)
        } catch {
            running.cancel()
            await running.value
            throw error
        }
    }

    /// Closes the pool's connections and stops the client's task. The archive cannot be used after.
    public func close() async {
        running.cancel()
        await running.value
    }

    /// The migrations the database has applied, in order.
    public func appliedMigrations() async throws -> [String] {
        try await migrator.appliedMigrations(client, logger: logger)
    }

    /// The logger of callers that pass none: the library logs nothing by itself.
    public static let silent = Logger(label: "qbarchive.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The value of `archive_meta.format`, as in a SQLite archive.
    static let formatName = "qbarchive"

    private static func writeIdentity(_ client: PostgresClient, now: Int, logger: Logger) async throws {
        let id = UUID()
        let createdAt = Int64(now)
        let format = formatName
        try await client.query(
            """
            INSERT INTO archive_meta (id, archive_id, created_at, format) VALUES (1, \(id), \(createdAt), \(format))
            ON CONFLICT (id) DO NOTHING
            """, logger: logger)
    }

    /// Runs the first statement of an open within the location's `connect_timeout` (10 s by default): the
    /// pool retries a connection it cannot make for a minute before it gives up, too long for a wrong URL.
    private static func reachable(_ location: PostgresLocation, _ body: @escaping @Sendable () async throws -> Void)
        async throws
    {
        let seconds = location.connectTimeout ?? 10
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return true
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return false
            }
            let finished = try await group.next() ?? false
            group.cancelAll()
            guard finished else {
                throw PostgresUnreachable(location: location.description, seconds: seconds)
            }
        }
    }

    /// Refuses, for a read-only open, a database without a complete archive of this build's schema.
    ///
    /// One statement when the archive is there — its applied migrations — where an open used to ask first
    /// whether the table exists and whether the database is another application's: a search's process opens
    /// the archive each time (three round trips and two first parses, about 3 ms, were a sixth of PostgreSQL's
    /// part of a search that reads nothing). Without the table, the database is another application's
    /// (``ArchiveError/notAnArchive(path:reason:)``) or holds no archive (``ArchiveError/missing(path:)``).
    private static func refuseIncomplete(
        _ client: PostgresClient, location: PostgresLocation, logger: Logger
    ) async throws {
        guard let applied = try await PostgresMigrator.recordedIfAny(client, logger: logger) else {
            try await refuseForeignDatabase(client, location: location, logger: logger)
            throw ArchiveError.missing(path: location.description)
        }
        let known = PostgresSchema.migrator.names
        if applied.isEmpty { throw ArchiveError.missing(path: location.description) }
        if applied.contains(where: { !known.contains($0) }) {
            throw ArchiveError.newerFormat(path: location.description)
        }
        if applied.count < known.count { throw ArchiveError.needsUpgrade(path: location.description) }
    }

    /// Refuses a database that has tables of its own and no `qbarchive_migrations`: a wrong URL must not
    /// fill another application's database with an archive's tables.
    private static func refuseForeignDatabase(
        _ client: PostgresClient, location: PostgresLocation, logger: Logger
    ) async throws {
        let rows = try await client.query(
            """
            SELECT to_regclass('qbarchive_migrations') IS NULL
                AND EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema())
            """, logger: logger)
        var foreign = false
        for try await value in rows.decode(Bool.self) { foreign = value }
        guard foreign else { return }
        throw ArchiveError.notAnArchive(
            path: location.description,
            reason: "the database holds tables and none of qbarchive's; give the archive an empty database")
    }
}
