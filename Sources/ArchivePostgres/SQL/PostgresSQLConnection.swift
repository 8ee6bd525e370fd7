import Archive
import ArchiveSQL
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The shared reader's connection over a postgres-nio connection inside a transaction of
/// ``PostgresSQLDatabase``.
///
/// The shared reader is synchronous (SQLite's cursors block), postgres-nio is async: the reader's closure runs
/// on a thread of its own (``BlockingThread``), and each statement hops to the connection and back, its rows
/// fetched ``RowFeed/batchSize`` at a time, so a long cursor holds one batch in memory, as SQLite's does.
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    var dialect: any SQLDialect { PostgresDialect() }

    func forEach(_ statement: SQLFragment, _ body: (any SQLRow) throws -> Void) throws {
        let feed = try RowFeed(connection, try query(statement), logger: logger)
        defer { feed.finish() }
        while let batch = try feed.next() {
            for row in batch { try body(PostgresSQLRow(row: PostgresRandomAccessRow(row))) }
        }
    }

    /// One query instead of a cursor (`DECLARE`, `FETCH`, `CLOSE`: three round trips): its rows are read before
    /// `body` sees them, so `body` may run statements of its own. After `limit` rows the rest are left unread
    /// (postgres-nio drains them before the connection's next statement).
    func forEachCollected(_ statement: SQLFragment, limit: Int?, _ body: (any SQLRow) throws -> Void) throws {
        if limit == 0 { return }
        let query = try query(statement)
        let rows = try RowFeed.hop { [connection, logger] in
            var rows: [PostgresRow] = []
            for try await row in try await connection.query(query, logger: logger) {
                rows.append(row)
                if let limit, rows.count == limit { break }
            }
            return rows
        }
        for row in rows { try body(PostgresSQLRow(row: PostgresRandomAccessRow(row))) }
    }

    /// `EXPLAIN` cannot be a cursor's statement: it runs as a query of its own (a few lines).
    func plan(of statement: SQLFragment) throws -> [String] {
        let explain = try query("EXPLAIN \(statement)")
        return try RowFeed.hop { [connection, logger] in
            var lines: [String] = []
            for try await line in try await connection.query(explain, logger: logger).decode(String.self) {
                lines.append(line)
            }
            return lines
        }
    }

    /// `statement` with its values bound as postgres-nio binds them.
    private func query(_ statement: SQLFragment) throws -> PostgresQuery {
        try statement.postgresQuery()
    }
}

/// A row of a PostgreSQL result read through the shared reader's primitives, decoded by the column's type.
///
/// SQLite's values carry their type; PostgreSQL's columns do: a `numeric` (what `SUM` of `bigint` gives) reads
/// as an integer when it is whole, a `boolean` as 0 or 1, a `uuid` as its text.
struct PostgresSQLRow: SQLRow {
    let row: PostgresRandomAccessRow

    func isNull(_ index: Int) -> Bool { row[index].bytes == nil }

    func integer(_ index: Int) -> Int64? {
        switch value(index) {
        case .integer(let number): return number
        case .real(let number): return number.isFinite ? Int64(number) : nil
        case .text(let text): return Int64(text)
        case .null, .blob: return nil
        }
    }

    func real(_ index: Int) -> Double? {
        switch value(index) {
        case .integer(let number): return Double(number)
        case .real(let number): return number
        case .text(let text): return Double(text)
        case .null, .blob: return nil
        }
    }

    func text(_ index: Int) -> String? {
        switch value(index) {
        case .text(let text): return text
        case .integer(let number): return String(number)
        case .real(let number): return String(number)
        case .blob(let data): return String(decoding: data, as: UTF8.self)
        case .null: return nil
        }
    }

    func blob(_ index: Int) -> Data? {
        switch value(index) {
        case .blob(let data): return data
        case .text(let text): return Data(text.utf8)
        default: return nil
        }
    }

    func value(_ index: Int) -> SQLValue {
        let cell = row[index]
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int8: return .integer(try cell.decode(Int64.self))
            case .int4: return .integer(Int64(try cell.decode(Int32.self)))
            case .int2: return .integer(Int64(try cell.decode(Int16.self)))
            case .bool: return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float8: return .real(try cell.decode(Double.self))
            case .float4: return .real(Double(try cell.decode(Float.self)))
            case .numeric:
                let number = try cell.decode(Decimal.self)
                if number == number.rounded(), let whole = Int64(exactly: NSDecimalNumber(decimal: number).int64Value),
                    Decimal(whole) == number
                {
                    return .integer(whole)
                }
                return .real(NSDecimalNumber(decimal: number).doubleValue)
            case .bytea: return .blob(Data((try cell.decode(ByteBuffer.self)).readableBytesView))
            case .uuid: return .text(try cell.decode(UUID.self).uuidString)
            default: return .text(try cell.decode(String.self))
            }
        } catch {
            // A type this program never selects: its bytes as text rather than a crash.
            return .text(String(buffer: cell.bytes ?? ByteBuffer()))
        }
    }
}

extension Decimal {
    fileprivate func rounded() -> Decimal {
        var value = self
        var result = Decimal()
        NSDecimalRound(&result, &value, 0, .down)
        return result
    }
}
