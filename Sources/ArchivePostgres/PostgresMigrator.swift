import Archive
import Logging
import PostgresNIO

/// Versioned migrations of a PostgreSQL archive, in the manner of GRDB's `DatabaseMigrator` (which the SQLite
/// archive uses): migrations are registered in order under a name, and ``migrate(_:location:logger:)`` applies
/// those the database has not applied yet, each in its own transaction together with its row in
/// `qbarchive_migrations`, so a migration is applied whole or not at all and never twice.
///
/// Several processes may open one archive at the same moment (crawl workers on several hosts). Each migration's
/// transaction first takes the transaction-scoped advisory lock ``lockKey`` (`pg_advisory_xact_lock`), then
/// checks whether the migration is recorded: the others wait at the lock, see the row once the first commits,
/// and skip it. Exactly one process applies each migration, and every one returns with the schema complete.
///
/// Like the SQLite archive's, migrations are append-only: a released one is never edited, a change is a new
/// one; a database that lists a migration this build does not know was migrated by a newer qbarchive, and is
/// refused with ``ArchiveError/newerFormat(path:)``.
public struct PostgresMigrator: Sendable {
    /// One named step of the schema.
    public struct Migration: Sendable {
        public var name: String
        /// Runs inside the migration's transaction, on its connection.
        public var migrate: @Sendable (PostgresConnection, Logger) async throws -> Void
    }

    /// The registered migrations, in the order they apply.
    public private(set) var migrations: [Migration] = []

    /// The key of the advisory lock every migration transaction takes: "qbarmigr" in ASCII.
    public static let lockKey: Int64 = 0x7162_6172_6D69_6772

    /// The table that records the applied migrations.
    static let createTable = """
        CREATE TABLE IF NOT EXISTS qbarchive_migrations (
            name text PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now())
        """

    public init() {}

    /// The names of the registered migrations, in order.
    public var names: [String] { migrations.map(\.name) }

    /// Registers a migration after the others. Names are unique: registering one twice is a programming error.
    public mutating func registerMigration(
        _ name: String, migrate: @escaping @Sendable (PostgresConnection, Logger) async throws -> Void
    ) {
        precondition(!names.contains(name), "migration \(name) is registered twice")
        migrations.append(Migration(name: name, migrate: migrate))
    }

    /// Registers a migration that runs `statements` (this program's DDL, no values) one after the other.
    ///
    /// The statements are made when the migration runs, not when it is registered: `v1-core`'s folding
    /// function is built from every folding scalar (90 ms), which every open of an archive paid, searches too.
    public mutating func registerMigration(
        _ name: String, statements: @autoclosure @escaping @Sendable () -> [String]
    ) {
        registerMigration(name) { connection, logger in
            for statement in statements() {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    /// Applies the migrations the database has not applied, in order; returns the names applied by this call
    /// (none when another process applied them first or the schema was up to date).
    ///
    /// - Parameter location: how errors name the archive (a ``PostgresLocation``'s description, no password).
    /// - Throws: ``ArchiveError/newerFormat(path:)`` when the database lists a migration this build does not
    ///   know; the server's error when a migration fails (its transaction is rolled back).
    @discardableResult
    public func migrate(_ client: PostgresClient, location: String, logger: Logger) async throws -> [String] {
        let known = Set(names)
        return try await client.withConnection { connection in
            try await Self.inTransaction(connection, logger: logger) {
                try await Self.lock(connection, logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: Self.createTable), logger: logger)
                let applied = try await Self.recorded(connection, logger: logger)
                if applied.contains(where: { !known.contains($0) }) {
                    throw ArchiveError.newerFormat(path: location)
                }
            }
            var appliedNow: [String] = []
            for migration in migrations {
                let name = migration.name
                let didApply = try await Self.inTransaction(connection, logger: logger) {
                    try await Self.lock(connection, logger: logger)
                    let recorded = try await Self.bool(
                        "SELECT EXISTS (SELECT 1 FROM qbarchive_migrations WHERE name = \(name))", connection, logger)
                    if recorded { return false }
                    try await migration.migrate(connection, logger)
                    try await connection.query(
                        "INSERT INTO qbarchive_migrations (name) VALUES (\(name))", logger: logger)
                    return true
                }
                if didApply {
                    logger.info("applied migration", metadata: ["migration": "\(name)"])
                    appliedNow.append(name)
                }
            }
            return appliedNow
        }
    }

    /// The migrations the database records, in the order this build applies them (any it does not know last,
    /// in the order they were applied); empty for a database never migrated.
    public func appliedMigrations(_ client: PostgresClient, logger: Logger) async throws -> [String] {
        let order = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
        let applied = try await Self.recordedIfAny(client, logger: logger) ?? []
        return applied.enumerated()
            .sorted { (order[$0.element] ?? Int.max, $0.offset) < (order[$1.element] ?? Int.max, $1.offset) }
            .map(\.element)
    }

    /// The recorded names in the order they were applied, in one statement; `nil` when the table does not exist
    /// (the statement fails with `undefined_table`, which leaves no transaction behind: none is open).
    static func recordedIfAny(_ client: PostgresClient, logger: Logger) async throws -> [String]? {
        do {
            var names: [String] = []
            let rows = try await client.query(
                "SELECT name FROM qbarchive_migrations ORDER BY applied_at, name", logger: logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            return nil
        }
    }

    /// The recorded names in the order they were applied, or none when the table does not exist; inside a
    /// transaction (the migrations'), where a failing statement would abort it, the table is looked up first.
    private static func recorded(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        guard try await bool("SELECT to_regclass('qbarchive_migrations') IS NOT NULL", connection, logger) else {
            return []
        }
        var names: [String] = []
        let rows = try await connection.query(
            "SELECT name FROM qbarchive_migrations ORDER BY applied_at, name", logger: logger)
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// The one boolean `query` selects (false when it selects no row), reading every row it sends.
    static func bool(_ query: PostgresQuery, _ connection: PostgresConnection, _ logger: Logger) async throws -> Bool {
        var value = false
        for try await row in try await connection.query(query, logger: logger).decode(Bool.self) { value = row }
        return value
    }

    private static func lock(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
    }

    /// Runs `body` between `BEGIN` and `COMMIT` on `connection`, rolling back when it throws and rethrowing its
    /// error unchanged (postgres-nio's `withTransaction` wraps it).
    static func inTransaction<Result: Sendable>(
        _ connection: PostgresConnection, logger: Logger, _ body: () async throws -> Result
    ) async throws -> Result {
        try await connection.query("BEGIN", logger: logger)
        do {
            let result = try await body()
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}
