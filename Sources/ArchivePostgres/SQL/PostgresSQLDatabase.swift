import Archive
import ArchiveSQL
import Logging
import PostgresNIO

/// How the PostgreSQL archive runs the shared reads: each read leases a pooled connection and runs in one
/// `REPEATABLE READ READ ONLY` transaction (every statement sees the same archive, as in SQLite's read
/// transactions), bounded by `statement_timeout` when the archive was opened with one; a snapshot holds such a
/// transaction open for as long as its body runs.
struct PostgresSQLDatabase: SQLDatabase {
    let client: PostgresClient
    let logger: Logger
    let statementTimeout: Duration?
    var dialect: any SQLDialect { PostgresDialect() }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let logger = logger
        return try await client.withConnection { connection in
            try await Self.readTransaction(on: connection, timeout: statementTimeout, logger: logger) {
                try await BlockingThread.run { try body(PostgresSQLConnection(connection: connection, logger: logger)) }
            }
        }
    }

    func withSnapshot<T: Sendable>(_ body: @Sendable (any SQLSnapshotDatabase) async throws -> T) async throws -> T {
        let logger = logger
        return try await client.withConnection { connection in
            try await Self.readTransaction(on: connection, timeout: nil, logger: logger) {
                try await body(PostgresSnapshotDatabase(connection: connection, logger: logger))
            }
        }
    }

    /// A session advisory lock taken before the transaction begins, so that its snapshot already sees what the
    /// previous writer committed (a lock taken inside would come after the snapshot); a repeatable-read
    /// transaction, so that every statement sees the same archive while concurrent crawl workers go on writing.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let logger = logger
        return try await client.withConnection { connection in
            try await connection.query("SELECT pg_advisory_lock(\(Self.writeLock))", logger: logger)
            do {
                try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ", logger: logger)
                let result: T
                do {
                    result = try await BlockingThread.run {
                        try body(PostgresSQLConnection(connection: connection, logger: logger))
                    }
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw PostgresErrors.translated(error, timeout: nil)
                }
                try await connection.query("SELECT pg_advisory_unlock(\(Self.writeLock))", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.writeLock))", logger: logger)
                throw error
            }
        }
    }

    /// The advisory lock of ``write(_:)`` ("qbarstat").
    static let writeLock: Int64 = 0x7162_6172_7374_6174

    /// Runs `body` inside a read-only, repeatable-read transaction on `connection`, ended whatever happens; with
    /// `snapshot`, the transaction sees what the transaction that exported it sees (``ExportedSnapshot``).
    static func readTransaction<T>(
        on connection: PostgresConnection, timeout: Duration?, snapshot: ExportedSnapshot? = nil, logger: Logger,
        _ body: () async throws -> T
    ) async throws -> T {
        try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: logger)
        do {
            if let snapshot { try await connection.query(snapshot.importStatement, logger: logger) }
            if let timeout {
                let milliseconds = max(
                    1, Int64(timeout.components.seconds * 1000) + timeout.components.attoseconds / 1_000_000_000_000_000
                )
                try await connection.query(
                    PostgresQuery(unsafeSQL: "SET LOCAL statement_timeout = \(milliseconds)"), logger: logger)
            }
            let result = try await body()
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw PostgresErrors.translated(error, timeout: timeout)
        }
    }
}

/// A transaction held open as the shared reader's consistent view (an export's).
struct PostgresSnapshotDatabase: SQLSnapshotDatabase {
    let connection: PostgresConnection
    let logger: Logger

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let connection = connection
        let logger = logger
        do {
            return try await BlockingThread.run {
                try body(PostgresSQLConnection(connection: connection, logger: logger))
            }
        } catch {
            throw PostgresErrors.translated(error, timeout: nil)
        }
    }
}
