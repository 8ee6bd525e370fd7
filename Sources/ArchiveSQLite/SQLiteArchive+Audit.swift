import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Appends an entry to the archive's audit log and returns it.
    ///
    /// Each entry's hash is SHA-256 over the previous entry's hash and this entry's time, action and
    /// detail, so removing or editing an entry breaks every later hash. Triggers refuse `UPDATE` and
    /// `DELETE` on the table. `detail` is written as canonical JSON (sorted keys).
    @discardableResult
    public func appendAudit(action: String, detail: JSONValue, at time: Int) async throws -> AuditEntry {
        try await pool.write { db in try Self.appendAudit(db, action: action, detail: detail, at: time) }
    }

    /// Appends an audit entry inside the caller's transaction (an act and its entry commit together).
    @discardableResult
    static func appendAudit(_ db: Database, action: String, detail: JSONValue, at time: Int) throws -> AuditEntry {
        let previous = try Data.fetchOne(db, sql: "SELECT hash FROM audit_log ORDER BY id DESC LIMIT 1")
        let text = detail.jsonString
        let hash = AuditEntry.hash(previous: previous, at: time, action: action, detail: text)
        try db.execute(
            sql: "INSERT INTO audit_log (at, action, detail, previous_hash, hash) VALUES (?, ?, ?, ?, ?)",
            arguments: [time, action, text, previous, hash])
        return AuditEntry(
            id: db.lastInsertedRowID, at: time, action: action, detail: text, previousHash: previous, hash: hash)
    }

}
