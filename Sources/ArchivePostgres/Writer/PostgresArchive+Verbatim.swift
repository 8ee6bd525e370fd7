import Archive
import Foundation
import PostgresNIO

extension PostgresArchive: VerbatimTableAccess {
    /// Up to `limit` rows of `table` in key order after `after`, as stored (see ``VerbatimTableAccess``).
    public func verbatimRows(_ table: VerbatimTable, after: [TableCell]?, limit: Int) async throws -> [[TableCell]] {
        var bindings = PostgresBindings()
        var conditions: [String] = table.filter.map { [$0] } ?? []
        if let after {
            let key = table.key
            var marks: [String] = []
            for cell in after.prefix(key.count) { marks.append(try Self.bind(cell, into: &bindings)) }
            conditions.append("(\(key.joined(separator: ", "))) > (\(marks.joined(separator: ", ")))")
        }
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.table)"
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        sql += " ORDER BY \(table.key.joined(separator: ", ")) LIMIT \(limit)"
        var rows: [[TableCell]] = []
        for try await row in try await client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: Self.silent)
        {
            rows.append(try row.map(Self.cell))
        }
        return rows
    }

    /// How many rows of `table` a migration copies.
    public func verbatimCount(_ table: VerbatimTable) async throws -> Int {
        let sql = "SELECT COUNT(*) FROM \(table.table)" + (table.filter.map { " WHERE \($0)" } ?? "")
        var count = 0
        for try await value in try await client.query(PostgresQuery(unsafeSQL: sql), logger: Self.silent).decode(
            Int.self)
        {
            count = value
        }
        return count
    }

    /// Writes rows read from another archive in one transaction (identity columns then continue after the highest
    /// key); returns how many changed.
    public func writeVerbatim(_ table: VerbatimTable, rows: [[TableCell]]) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let columns = table.columns
        let keyCount = table.key.count
        return try await transaction { connection in
            var changed = 0
            for row in rows {
                var bindings = PostgresBindings()
                let sql: String
                switch table.kind {
                case .insert:
                    let marks = try row.map { try Self.bind($0, into: &bindings) }.joined(separator: ", ")
                    sql = """
                        INSERT INTO \(table.table) (\(columns.joined(separator: ", "))) VALUES (\(marks))
                        ON CONFLICT DO NOTHING RETURNING 1
                        """
                case .update:
                    let sets = try zip(columns.dropFirst(keyCount), row.dropFirst(keyCount)).map { column, cell in
                        "\(column) = \(try Self.bind(cell, into: &bindings))"
                    }
                    let keys = try zip(table.key, row.prefix(keyCount)).map { column, cell in
                        "\(column) = \(try Self.bind(cell, into: &bindings))"
                    }
                    // Only rows whose columns differ: a resumed migration rewrites nothing and counts nothing.
                    let differs = columns.dropFirst(keyCount).enumerated().map { index, column in
                        "\(column) IS DISTINCT FROM $\(index + 1)"
                    }
                    sql = """
                        UPDATE \(table.table) SET \(sets.joined(separator: ", "))
                        WHERE \(keys.joined(separator: " AND ")) AND (\(differs.joined(separator: " OR "))) RETURNING 1
                        """
                }
                changed += try await connection.changes(PostgresQuery(unsafeSQL: sql, binds: bindings))
            }
            if table.hasIdentity {
                try await connection.run(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT setval(pg_get_serial_sequence('\(table.table)', 'id'), m)
                            FROM (SELECT MAX(id) AS m FROM \(table.table)) AS highest WHERE m IS NOT NULL
                            """))
            }
            return changed
        }
    }

    /// Binds `cell` and returns its placeholder (`$n`).
    private static func bind(_ cell: TableCell, into bindings: inout PostgresBindings) throws -> String {
        switch cell {
        case .null: bindings.appendNull()
        case .integer(let value): bindings.append(value)
        case .real(let value): bindings.append(value)
        case .text(let value): bindings.append(value)
        case .blob(let value): try bindings.append(value)
        }
        return "$\(bindings.count)"
    }

    private static func cell(_ cell: PostgresCell) throws -> TableCell {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return .integer(try cell.decode(Int64.self))
        case .float4, .float8: return .real(try cell.decode(Double.self))
        case .bytea: return .blob(try cell.decode(Data.self))
        default: return .text(try cell.decode(String.self))
        }
    }
}
