import ArchiveSQL
import Foundation
import GRDB

/// The shared reader's connection over a GRDB `Database`, inside a read that GRDB runs.
struct GRDBConnection: SQLConnection {
    let db: Database
    let dialect: any SQLDialect = SQLiteDialect()

    /// SQLite's limits that a very long query can reach once compiled (hundreds of alternatives, very deep
    /// nesting): each becomes ``SQLTooComplexError``, which the reader turns into a positioned query error.
    static let complexityLimits = [
        "too many terms in compound SELECT", "Expression tree is too large", "parser stack overflow",
        "too many SQL variables", "at most 64 tables in a join",
    ]

    func forEach(_ statement: SQLFragment, _ body: (any SQLRow) throws -> Void) throws {
        let (sql, values) = statement.rendered(for: dialect)
        do {
            // Cached per statement text: the same look-up runs once per key or page, prepared once.
            let statement = try db.cachedStatement(sql: sql)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(values.map(\.databaseValue)))
            while let row = try cursor.next() { try body(GRDBRow(row: row)) }
        } catch let error as DatabaseError {
            if let message = error.message, Self.complexityLimits.contains(where: message.contains) {
                throw SQLTooComplexError(message: message)
            }
            throw error
        }
    }
}

extension GRDBConnection {
    func plan(of statement: SQLFragment) throws -> [String] {
        // Rows are (id, parent, notused, detail); a step's depth is its parent's plus one.
        var depth: [Int64: Int] = [:]
        var lines: [String] = []
        try forEach("EXPLAIN QUERY PLAN \(statement)") { row in
            let (id, parent): (Int64, Int64) = (row[0], row[1])
            let level = (depth[parent] ?? -1) + 1
            depth[id] = level
            lines.append(String(repeating: "  ", count: level) + (row[3] as String))
        }
        return lines
    }
}

/// A GRDB row read through the shared reader's primitives.
struct GRDBRow: SQLRow {
    let row: Row

    func isNull(_ index: Int) -> Bool { row.hasNull(atIndex: index) }
    func integer(_ index: Int) -> Int64? { row[index] }
    func real(_ index: Int) -> Double? { row[index] }
    func text(_ index: Int) -> String? { row[index] }
    func blob(_ index: Int) -> Data? { row[index] }

    func value(_ index: Int) -> SQLValue {
        let value: DatabaseValue = row[index]
        switch value.storage {
        case .null: return .null
        case .int64(let number): return .integer(number)
        case .double(let number): return .real(number)
        case .string(let text): return .text(text)
        case .blob(let data): return .blob(data)
        }
    }
}

extension SQLValue {
    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let number): return number.databaseValue
        case .real(let number): return number.databaseValue
        case .text(let text): return text.databaseValue
        case .blob(let data): return data.databaseValue
        }
    }
}
