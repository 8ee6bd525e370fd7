import ArchiveSQL
import GRDB

/// How the SQLite archive runs the shared reads: on GRDB's pool of read-only connections (WAL, so reads
/// never wait for a crawl), each bounded by the archive's statement timeout; a snapshot is GRDB's
/// `DatabaseSnapshot`, a connection of its own holding one read transaction.
struct SQLiteDatabase: SQLDatabase {
    let pool: DatabasePool
    let statementTimeout: Duration?
    var dialect: any SQLDialect { SQLiteDialect() }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        let timeout = statementTimeout
        return try await pool.read { db in
            guard let timeout else { return try body(GRDBConnection(db: db)) }
            return try SQLiteArchive.withDeadline(timeout, db: db) { try body(GRDBConnection(db: db)) }
        }
    }

    func withSnapshot<T: Sendable>(_ body: @Sendable (any SQLSnapshotDatabase) async throws -> T) async throws -> T {
        try await body(SQLiteSnapshotDatabase(snapshot: try pool.makeSnapshot()))
    }

    /// GRDB's single writer, in an `IMMEDIATE` transaction: the write lock is taken before the first read, so
    /// another process's write cannot slip between what `body` reads and what it writes.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await writeOnGRDB(body)
    }

    /// ``write(_:)`` with the connection as the SQLite backend's own, for writers that reach past the shared SQL
    /// (``StatsShareWriter``).
    func writeOnGRDB<T: Sendable>(_ body: @escaping @Sendable (GRDBConnection) throws -> T) async throws -> T {
        try await pool.writeWithoutTransaction { db in
            var result: T?
            try db.inTransaction(.immediate) {
                result = try body(GRDBConnection(db: db))
                return .commit
            }
            guard let result else { throw DatabaseError(resultCode: .SQLITE_INTERNAL) }
            return result
        }
    }
}

/// A GRDB `DatabaseSnapshot` as the shared reader's consistent view.
struct SQLiteSnapshotDatabase: SQLSnapshotDatabase {
    let snapshot: DatabaseSnapshot

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await snapshot.read { db in try body(GRDBConnection(db: db)) }
    }
}
