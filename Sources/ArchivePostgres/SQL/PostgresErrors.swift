import Archive
import ArchiveSQL
import Foundation
import PostgresNIO

/// The server's refusals the shared reader must tell apart, by SQLSTATE.
enum PostgresErrors {
    /// `query_canceled`: `statement_timeout` ended the statement.
    static let queryCanceled = "57014"
    /// The program-limit class (`54…`): a statement too deep or too wide for the server.
    static let programLimitClass = "54"

    /// `error` as the shared reader's callers expect it: a timeout as ``ArchiveError/timedOut(seconds:)``, a
    /// statement too complex as ``ArchiveSQL/SQLTooComplexError``; anything else as it is.
    static func translated(_ error: any Error, timeout: Duration?) -> any Error {
        guard let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] else { return error }
        let message = error.serverInfo?[.message] ?? state
        if state == queryCanceled, let timeout {
            return ArchiveError.timedOut(seconds: Double(timeout.components.seconds))
        }
        if state.hasPrefix(programLimitClass) { return SQLTooComplexError(message: message) }
        return PostgresServerError(message: message, sqlState: state)
    }
}

/// A statement the server refused, with its message and SQLSTATE (postgres-nio's own error keeps them out of
/// its description).
public struct PostgresServerError: Error, LocalizedError, Sendable {
    public var message: String
    public var sqlState: String

    public var errorDescription: String? { "PostgreSQL refused a statement: \(message) (SQLSTATE \(sqlState))" }
}

/// No session with the server within the location's `connect_timeout`: a wrong host, port, user, password or
/// database, or a server that is down (the pool does not say which: it keeps retrying).
public struct PostgresUnreachable: Error, LocalizedError, Sendable {
    public var location: String
    public var seconds: Int

    public var errorDescription: String? {
        "Could not open a session on \(location) within \(seconds) s. Check the host, port, user, password and "
            + "database, and that PostgreSQL is running; add ?connect_timeout=N to wait longer."
    }
}
