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
        let text = detail.jsonString
        return try await transaction { connection in
            try await connection.run("LOCK TABLE audit_log IN SHARE ROW EXCLUSIVE MODE")
            var previous: Data?
            let last = try await connection.query(
                "SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1", logger: Self.silent)
            for try await hash in last.decode(Data.self) { previous = hash }
            let hash = AuditEntry.hash(previous: previous, at: time, action: action, detail: text)
            let rows = try await connection.query(
                """
                INSERT INTO audit_log (at, action, detail, previous_hash, hash)
                VALUES (\(Int64(time)), \(SQLiteText.cut(action)), \(text), \(previous), \(hash))
                RETURNING id
                """, logger: Self.silent)
            var id: Int64?
            for try await value in rows.decode(Int64.self) { id = value }
            guard let id else { throw PostgresWriterError.noRowReturned }
            return AuditEntry(id: id, at: time, action: action, detail: text, previousHash: previous, hash: hash)
        }
    }
}
