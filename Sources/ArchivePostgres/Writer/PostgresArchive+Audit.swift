import Archive
import Foundation
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Appends an entry to the archive's audit log and returns it: the same hash chain as every backend's
    /// (``AuditEntry/hash(previous:at:action:detail:)``), `detail` as canonical JSON.
    ///
    /// The transaction locks `audit_log` against other appenders (`SHARE ROW EXCLUSIVE` conflicts with itself,
    /// not with readers) before it reads the last hash, so two processes never chain to the same entry.
    @discardableResult
    public func appendAudit(action: String, detail: JSONValue, at time: Int) async throws -> AuditEntry {
        try await transaction { connection in
            try await Self.appendAudit(action: action, detail: detail, at: time, connection: connection)
        }
    }
}
