import ArchiveSQL
import NIOCore
import PostgresNIO

extension SQLFragment {
    /// The fragment as postgres-nio runs it: rendered for ``PostgresDialect`` (`$1`, `$2`, …) with its values
    /// bound. The one conversion from the SQL built as values in ArchiveSQL to a statement this backend sends,
    /// whether the shared reader runs it or the writer does inside a transaction of its own.
    func postgresQuery() throws -> PostgresQuery {
        let (sql, values) = rendered(for: PostgresDialect())
        var binds = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: binds.appendNull()
            case .integer(let number): try binds.append(number)
            case .real(let number): try binds.append(number)
            case .text(let text): try binds.append(text)
            case .blob(let data): try binds.append(ByteBuffer(bytes: data))
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }
}
