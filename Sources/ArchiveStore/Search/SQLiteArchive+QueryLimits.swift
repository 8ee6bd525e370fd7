import GRDB
import QueryLanguage

extension SQLiteArchive {
    /// SQLite's limits that a very long query can reach once compiled (hundreds of alternatives, very deep
    /// nesting): each becomes a positioned ``QueryError`` (exit code 2), never a raw database error.
    static let complexityLimits = [
        "too many terms in compound SELECT", "Expression tree is too large", "parser stack overflow",
        "too many SQL variables", "at most 64 tables in a join",
    ]

    /// Runs `body`, turning SQLite's "query too complex" errors into a ``QueryError`` covering the query.
    static func limitingComplexity<T>(of query: Query?, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            guard let query, let message = error.message, complexityLimits.contains(where: message.contains) else {
                throw error
            }
            throw QueryError(
                position: 0, length: query.source.count,
                message: "the query is too complex for the archive's SQL engine (\(message))",
                hint: "split it into several searches, or use fewer alternatives (`in (a, b, c)` for many values)")
        }
    }
}
