import ArchiveSQL
import Foundation
import GRDB
internal import GRDBSQLite

/// A statement of the archive's per-message loops, bound and stepped through SQLite's C interface.
///
/// Hand-written over GRDB's `Statement.execute(arguments:)` and `Row.fetchOne`, which for every execution build a
/// `StatementArguments` (an array of `DatabaseValue`s), bind them through nested closures, record the statement's
/// region for observation and check the connection's suspension, and make a `Row` with a dictionary of its column
/// names: in a profile of a crawl, about an eighth of the time of the archive's writer, the thread that bounds a
/// crawl (docs/performance.md, *the crawl's writer without GRDB's per-statement work*). GRDB still prepares, caches
/// and finalizes the statement; this only binds, steps and resets it.
///
/// Use it only inside the connection's access, within a write transaction the archive opened through GRDB, on a
/// connection without transaction observers (the archive registers none): GRDB does not see these executions.
/// Every execution resets the statement and clears its bindings first, so GRDB's own uses of the same cached
/// statement stay correct.
struct HotStatement {
    /// Held so that the statement outlives its uses here even if GRDB's cache lets it go (GRDB finalizes a
    /// statement when the last reference to it goes).
    private let statement: Statement
    private let handle: OpaquePointer
    private let connection: OpaquePointer?

    /// The statement of `sql`, prepared once per connection through GRDB's statement cache.
    init(db: Database, sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        handle = statement.sqliteStatement
        connection = db.sqliteConnection
    }

    /// Binds with `bind`, then steps the statement to its end.
    ///
    /// - Throws: A `DatabaseError` with SQLite's code and message when a step fails (the statement is reset).
    func execute(_ bind: (inout Bindings) throws -> Void) throws {
        try start(bind)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            if code != SQLITE_ROW { throw failure(code) }
        }
    }

    /// Binds with `bind`, steps once, and reads the first row with `read` (`nil` when there is none).
    func fetchFirst<T>(_ bind: (inout Bindings) throws -> Void, read: (Columns) throws -> T) throws -> T? {
        try start(bind)
        defer { sqlite3_reset(handle) }
        let code = sqlite3_step(handle)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw failure(code) }
        return try read(Columns(handle: handle))
    }

    /// Binds with `bind`, then calls `read` with each row the statement steps to.
    func forEachRow(_ bind: (inout Bindings) throws -> Void, read: (Columns) throws -> Void) throws {
        try start(bind)
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code) }
            try read(Columns(handle: handle))
        }
    }

    private func start(_ bind: (inout Bindings) throws -> Void) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        var bindings = Bindings(handle: handle)
        try bind(&bindings)
        if let code = bindings.failure { throw failure(code) }
    }

    private func failure(_ code: CInt) -> DatabaseError {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        return DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
    }

    /// The values of one execution, bound by position (from 1), copied by SQLite as they are bound.
    struct Bindings {
        fileprivate let handle: OpaquePointer
        /// The first binding SQLite refused (out of range, too big), thrown before the statement runs.
        fileprivate var failure: CInt?

        fileprivate init(handle: OpaquePointer) {
            self.handle = handle
        }

        private mutating func check(_ code: CInt) {
            if code != SQLITE_OK, failure == nil { failure = code }
        }

        mutating func bind(_ index: CInt, _ value: Int64) {
            check(sqlite3_bind_int64(handle, index, value))
        }

        mutating func bind(_ index: CInt, _ value: Int?) {
            guard let value else { return check(sqlite3_bind_null(handle, index)) }
            check(sqlite3_bind_int64(handle, index, Int64(value)))
        }

        /// Binds text as GRDB binds every text, up to a U+0000 (a message's text holds none: ``MessageContent``
        /// stores it as U+FFFD), so that what this writes and what GRDB reads and writes elsewhere are the same.
        mutating func bind(_ index: CInt, _ value: String?) {
            guard let value else { return check(sqlite3_bind_null(handle, index)) }
            check(value.withCString { sqlite3_bind_text(handle, index, $0, -1, Self.transient) })
        }

        /// Binds a value of the shared SQL's kind as its type.
        mutating func bind(_ index: CInt, _ value: SQLValue) {
            switch value {
            case .null: check(sqlite3_bind_null(handle, index))
            case .integer(let number): bind(index, number)
            case .real(let number): check(sqlite3_bind_double(handle, index, number))
            case .text(let text): bind(index, text as String?)
            case .blob(let data): bind(index, data)
            }
        }

        /// Binds a blob as GRDB does.
        mutating func bind(_ index: CInt, _ value: Data) {
            check(
                value.withUnsafeBytes {
                    sqlite3_bind_blob(handle, index, $0.baseAddress, CInt($0.count), Self.transient)
                })
        }

        /// `SQLITE_TRANSIENT`: SQLite copies the value before the call returns.
        private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    }

    /// The columns of the current row, by position (from 0).
    struct Columns {
        fileprivate let handle: OpaquePointer

        func isNull(_ index: CInt) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

        func int64(_ index: CInt) -> Int64 { sqlite3_column_int64(handle, index) }

        /// Whether the column holds text or a blob of at least one byte.
        func hasBytes(_ index: CInt) -> Bool { sqlite3_column_bytes(handle, index) > 0 }

        func int(_ index: CInt) -> Int? { isNull(index) ? nil : Int(sqlite3_column_int64(handle, index)) }

        /// The text of a column, read as GRDB reads it; `nil` for `NULL`.
        func string(_ index: CInt) -> String? {
            guard !isNull(index), let text = sqlite3_column_text(handle, index) else { return nil }
            return String(cString: text)
        }

        /// The bytes of a blob column (an empty blob is an empty `Data`); `nil` for `NULL`.
        func data(_ index: CInt) -> Data? {
            guard !isNull(index) else { return nil }
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return Data() }
            return Data(bytes: bytes, count: count)
        }
    }
}
