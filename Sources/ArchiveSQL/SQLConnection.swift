import Archive
import Foundation

/// A row of a result, read by column index.
///
/// A backend implements the primitive reads; ``subscript(_:)`` decodes any ``SQLColumn`` type on top of
/// them. A `NULL` read as a non-optional type gives that type's zero (the schema keeps such columns
/// `NOT NULL`).
public protocol SQLRow {
    func isNull(_ index: Int) -> Bool
    func integer(_ index: Int) -> Int64?
    func real(_ index: Int) -> Double?
    func text(_ index: Int) -> String?
    func blob(_ index: Int) -> Data?
    /// The value as stored, whatever its type.
    func value(_ index: Int) -> SQLValue
}

extension SQLRow {
    public subscript<T: SQLColumn>(_ index: Int) -> T {
        T.read(self, index)
    }
}

/// A type a column decodes to.
public protocol SQLColumn {
    /// The value, or `nil` when the column is `NULL` (one read of the column).
    static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Self?
    /// The value of a `NOT NULL` column (a `NULL` gives the type's zero).
    static func read(_ row: some SQLRow, _ index: Int) -> Self
}

extension Int: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Int? { row.integer(index).map { Int($0) } }
    public static func read(_ row: some SQLRow, _ index: Int) -> Int { readIfPresent(row, index) ?? 0 }
}

extension Int64: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Int64? { row.integer(index) }
    public static func read(_ row: some SQLRow, _ index: Int) -> Int64 { row.integer(index) ?? 0 }
}

extension Double: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Double? { row.real(index) }
    public static func read(_ row: some SQLRow, _ index: Int) -> Double { row.real(index) ?? 0 }
}

extension Bool: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Bool? { row.integer(index).map { $0 != 0 } }
    public static func read(_ row: some SQLRow, _ index: Int) -> Bool { (row.integer(index) ?? 0) != 0 }
}

extension String: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> String? { row.text(index) }
    public static func read(_ row: some SQLRow, _ index: Int) -> String { row.text(index) ?? "" }
}

extension Data: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Data? { row.blob(index) }
    public static func read(_ row: some SQLRow, _ index: Int) -> Data { row.blob(index) ?? Data() }
}

extension SQLValue: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> SQLValue? {
        let value = row.value(index)
        return value == .null ? nil : value
    }
    public static func read(_ row: some SQLRow, _ index: Int) -> SQLValue { row.value(index) }
}

extension Optional: SQLColumn where Wrapped: SQLColumn {
    public static func readIfPresent(_ row: some SQLRow, _ index: Int) -> Wrapped?? {
        .some(Wrapped.readIfPresent(row, index))
    }
    public static func read(_ row: some SQLRow, _ index: Int) -> Wrapped? { Wrapped.readIfPresent(row, index) }
}

/// One connection inside a backend's read transaction: statements run on it synchronously and see one
/// state of the archive.
///
/// The shared reader's statements are written against this; the backend runs the closures that use it
/// on threads of its own (``SQLDatabase``), so its callers stay async. Valid only inside that closure.
public protocol SQLConnection {
    var dialect: any SQLDialect { get }
    /// Steps through the rows of `statement`, calling `body` with each (the row is valid during the call).
    func forEach(_ statement: SQLFragment, _ body: (any SQLRow) throws -> Void) throws
    /// Calls `body` with the first `limit` rows of `statement` (every row when `nil`), which the backend may
    /// read to the end before `body` sees the first: for reads that keep the rows they read (``fetchAll(_:_:)``,
    /// ``fetchOne(_:_:)``). A backend whose cursors cost round trips runs it as one query (PostgreSQL: one round
    /// trip instead of a cursor's three). `body` may run statements of its own.
    func forEachCollected(_ statement: SQLFragment, limit: Int?, _ body: (any SQLRow) throws -> Void) throws
    /// The engine's plan for `statement` with its arguments bound, one line per step, indented by depth:
    /// SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN` (which plans without running it).
    func plan(of statement: SQLFragment) throws -> [String]
}

extension SQLConnection {
    /// Steps through the cursor of `statement` and ends it after `limit` rows (SQLite's rows cost no round
    /// trip: collecting them first would only cost memory).
    public func forEachCollected(
        _ statement: SQLFragment, limit: Int?, _ body: (any SQLRow) throws -> Void
    ) throws {
        guard let limit else { return try forEach(statement, body) }
        guard limit > 0 else { return }
        var seen = 0
        do {
            try forEach(statement) { row in
                try body(row)
                seen += 1
                if seen == limit { throw FirstRowRead() }
            }
        } catch is FirstRowRead {}
    }

    /// Every row of `statement`, decoded.
    public func fetchAll<T>(_ statement: SQLFragment, _ decode: (any SQLRow) throws -> T) throws -> [T] {
        var rows: [T] = []
        try forEachCollected(statement, limit: nil) { rows.append(try decode($0)) }
        return rows
    }

    /// The first row of `statement`, decoded, or `nil`.
    public func fetchOne<T>(_ statement: SQLFragment, _ decode: (any SQLRow) throws -> T) throws -> T? {
        var first: T?
        try forEachCollected(statement, limit: 1) { first = try decode($0) }
        return first
    }

    /// The first column of the first row as an integer, or `nil`.
    public func fetchInt(_ statement: SQLFragment) throws -> Int? {
        try fetchOne(statement) { $0[0] as Int? } ?? nil
    }

    /// Runs a statement that returns no rows (an `INSERT`, a `DELETE`), inside ``SQLDatabase/write(_:)``.
    public func execute(_ statement: SQLFragment) throws {
        try forEachCollected(statement, limit: nil) { _ in }
    }
}

/// How a backend runs the shared reader's reads.
public protocol SQLDatabase: Sendable {
    var dialect: any SQLDialect { get }
    /// Runs `body` in one read transaction, off the caller's thread; every statement in it sees the same
    /// archive. A backend may bound it in time (``ArchiveError/timedOut(seconds:)``).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
    /// Runs `first` and `second` as one read: both see the same archive. A backend may run `second` on another
    /// connection while `first` runs (PostgreSQL: in a transaction that imports `first`'s snapshot); by default
    /// `second` runs after `first`, in the same transaction. `first` starts at once, on the connection a read
    /// would have; give it the part that takes longer.
    func read<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable (any SQLConnection) throws -> First,
        beside second: @escaping @Sendable (any SQLConnection) throws -> Second
    ) async throws -> (First, Second)
    /// Runs `body` with a view in which every read sees the same archive for as long as `body` runs.
    func withSnapshot<T: Sendable>(_ body: @Sendable (any SQLSnapshotDatabase) async throws -> T) async throws -> T
    /// Runs `body` in one write transaction in which every statement sees the same archive, and which no other
    /// `write` of any process runs beside (SQLite: its single writer; PostgreSQL: an advisory lock taken before
    /// the transaction's snapshot). For the shared SQL that maintains derived tables (``StatsRollup``).
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
}

extension SQLDatabase {
    public func read<First: Sendable, Second: Sendable>(
        _ first: @escaping @Sendable (any SQLConnection) throws -> First,
        beside second: @escaping @Sendable (any SQLConnection) throws -> Second
    ) async throws -> (First, Second) {
        try await read { connection in (try first(connection), try second(connection)) }
    }
}

/// A long-lived consistent view (an export's): reads on it see one state of the archive, one at a time.
public protocol SQLSnapshotDatabase: Sendable {
    /// Runs `body` on the view's connection. `body` may block its thread (a stream waiting for its reader).
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T
}

/// A statement the backend's engine refused as too complex (too many terms, too deep), with its message.
public struct SQLTooComplexError: Error, Sendable {
    public var message: String

    public init(message: String) {
        self.message = message
    }
}

/// Ends a cursor after the rows asked for (``SQLConnection/forEachCollected(_:limit:_:)``).
private struct FirstRowRead: Error {}
