import Logging
import PostgresNIO

/// A read transaction's snapshot, exported (`pg_export_snapshot()`) so that a transaction on another connection
/// sees the same archive (`SET TRANSACTION SNAPSHOT`): valid while the exporting transaction is open.
struct ExportedSnapshot: Sendable {
    /// The server's identifier, such as `00000003-0000001B-1`.
    let id: String

    /// `id` when it has the form of the server's identifiers (hexadecimal digits and dashes), `nil` otherwise.
    init?(id: String) {
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0 == "-" || $0.isHexDigit) }) else { return nil }
        self.id = id
    }

    /// `SET TRANSACTION SNAPSHOT` takes a literal, not a parameter: the identifier is written into the statement,
    /// which ``init(id:)`` allows only for hexadecimal digits and dashes.
    var importStatement: PostgresQuery { PostgresQuery(unsafeSQL: "SET TRANSACTION SNAPSHOT '\(id)'") }

    /// The snapshot of the transaction open on `connection`, or `nil` on a hot standby, which cannot export one.
    static func export(on connection: PostgresConnection, logger: Logger) async throws -> ExportedSnapshot? {
        let rows = try await connection.query(
            "SELECT CASE WHEN pg_is_in_recovery() THEN NULL ELSE pg_export_snapshot() END", logger: logger)
        var id: String?
        for try await value in rows.decode(String?.self) { id = value }
        return id.flatMap(ExportedSnapshot.init(id:))
    }
}
