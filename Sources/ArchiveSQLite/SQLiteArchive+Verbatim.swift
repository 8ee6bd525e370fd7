import Archive
import Foundation
import GRDB

extension SQLiteArchive: VerbatimTableAccess {
    /// Up to `limit` rows of `table` in key order after `after`, as stored (see ``VerbatimTableAccess``).
    public func verbatimRows(_ table: VerbatimTable, after: [TableCell]?, limit: Int) async throws -> [[TableCell]] {
        let (sql, arguments) = Self.select(table, after: after, limit: limit)
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (0..<row.count).map { Self.cell(row[$0] as DatabaseValue) }
            }
        }
    }

    /// How many rows of `table` a migration copies.
    public func verbatimCount(_ table: VerbatimTable) async throws -> Int {
        let sql = "SELECT COUNT(*) FROM \(table.table)" + (table.filter.map { " WHERE \($0)" } ?? "")
        return try await pool.read { db in try Int.fetchOne(db, sql: sql) ?? 0 }
    }

    /// Writes rows read from another archive in one transaction; returns how many changed.
    public func writeVerbatim(_ table: VerbatimTable, rows: [[TableCell]]) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let columns = table.columns
        let sql: String
        switch table.kind {
        case .insert:
            let marks = Array(repeating: "?", count: columns.count).joined(separator: ", ")
            sql = """
                INSERT INTO \(table.table) (\(columns.joined(separator: ", "))) VALUES (\(marks))
                ON CONFLICT DO NOTHING
                """
        case .update:
            // Numbered parameters: the set values first, then the key; only rows whose columns differ are
            // written, so a resumed migration rewrites nothing and counts nothing.
            let key = table.key
            let values = columns.dropFirst(key.count)
            let sets = values.enumerated().map { "\($1) = ?\($0 + 1)" }.joined(separator: ", ")
            let keys = key.enumerated().map { "\($1) = ?\(values.count + $0 + 1)" }.joined(separator: " AND ")
            let differs = values.enumerated().map { "\($1) IS NOT ?\($0 + 1)" }.joined(separator: " OR ")
            sql = "UPDATE \(table.table) SET \(sets) WHERE \(keys) AND (\(differs))"
        }
        let keyCount = table.key.count
        return try await pool.write { db in
            let statement = try db.cachedStatement(sql: sql)
            var changed = 0
            for row in rows {
                var values = row.map(Self.value)
                if table.kind == .update { values = Array(values.dropFirst(keyCount)) + values.prefix(keyCount) }
                statement.setUncheckedArguments(StatementArguments(values))
                try statement.execute()
                changed += db.changesCount
            }
            return changed
        }
    }

    private static func select(_ table: VerbatimTable, after: [TableCell]?, limit: Int) -> (String, StatementArguments)
    {
        var conditions: [String] = table.filter.map { [$0] } ?? []
        var arguments: [DatabaseValue] = []
        if let after {
            let key = table.key
            conditions.append(
                "(\(key.joined(separator: ", "))) > (\(Array(repeating: "?", count: key.count).joined(separator: ", ")))"
            )
            arguments = after.prefix(key.count).map(value)
        }
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.table)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(table.key.joined(separator: ", ")) LIMIT \(limit)"
        return (sql, StatementArguments(arguments))
    }

    private static func cell(_ value: DatabaseValue) -> TableCell {
        switch value.storage {
        case .null: .null
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .string(let text): .text(text)
        case .blob(let data): .blob(data)
        }
    }

    private static func value(_ cell: TableCell) -> DatabaseValue {
        switch cell {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let data): data.databaseValue
        }
    }
}
