import Archive
import PostgresNIO

extension PostgresArchive {
    /// Runs `body` in one transaction on a pooled connection: `COMMIT` when it returns, `ROLLBACK` when it
    /// throws, and the error thrown is `body`'s own (postgres-nio's `withTransaction` wraps it in a
    /// `PostgresTransactionError`, which would hide an ``ArchiveError`` from its callers).
    func transaction<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: Self.silent)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: Self.silent)
                return result
            } catch {
                // A connection that broke cannot roll back; the server ends its transaction with it.
                _ = try? await connection.query("ROLLBACK", logger: Self.silent)
                throw error
            }
        }
    }

    /// Runs one statement (its own transaction) and returns how many rows it returned: with `RETURNING`, how
    /// many it changed (postgres-nio's async interface does not expose the command tag's count).
    @discardableResult
    func changes(_ query: PostgresQuery) async throws -> Int {
        try await client.query(query, logger: Self.silent).collect().count
    }
}

extension PostgresConnection {
    /// Runs `query` and returns how many rows it returned (with `RETURNING`: how many it changed).
    @discardableResult
    func changes(_ query: PostgresQuery) async throws -> Int {
        try await self.query(query, logger: PostgresArchive.silent).collect().count
    }

    /// Runs `query` and discards what it returns.
    func run(_ query: PostgresQuery) async throws {
        try await self.query(query, logger: PostgresArchive.silent).collect()
    }
}
