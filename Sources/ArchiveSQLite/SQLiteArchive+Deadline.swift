import Foundation
import GRDB
internal import GRDBSQLite

extension SQLiteArchive {
    /// Runs a read transaction; on a handle opened with a ``statementTimeout``, every statement it runs
    /// stops once that much time has passed since the read began.
    ///
    /// SQLite calls a progress handler every few thousand virtual-machine steps; ours compares the
    /// monotonic clock with the deadline and interrupts the statement past it (SQLite's documented way to
    /// bound a query's time). The deadline travels in the handler's context pointer itself, so nothing
    /// is allocated and nothing outlives the read. The interrupted statement surfaces as
    /// ``ArchiveError/timedOut(seconds:)``. The shared reads go through ``SQLiteDatabase``, which does the same.
    func reading<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws -> T {
        guard let timeout = statementTimeout else { return try await pool.read(body) }
        return try await pool.read { db in try Self.withDeadline(timeout, db: db) { try body(db) } }
    }

    /// Runs `body` with statements on `db` interrupted once `timeout` has passed.
    static func withDeadline<T>(_ timeout: Duration, db: Database, _ body: () throws -> T) throws -> T {
        let nanoseconds =
            UInt64(timeout.components.seconds) * 1_000_000_000
            + UInt64(timeout.components.attoseconds / 1_000_000_000)
        let deadline = monotonicNanoseconds() + nanoseconds
        sqlite3_progress_handler(
            db.sqliteConnection, 4000,
            { context in
                SQLiteArchive.monotonicNanoseconds() > UInt64(UInt(bitPattern: context)) ? 1 : 0
            }, UnsafeMutableRawPointer(bitPattern: UInt(deadline)))
        defer { sqlite3_progress_handler(db.sqliteConnection, 0, nil, nil) }
        do {
            return try body()
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            throw ArchiveError.timedOut(seconds: Double(nanoseconds) / 1e9)
        }
    }

    static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
