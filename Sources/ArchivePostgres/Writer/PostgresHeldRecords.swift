import Archive
import Foundation
import PostgresNIO

/// Reads what the archive holds of records an import found already there, for ``NotMerged``'s comparison (as
/// SQLite's `HeldRecords`): only records that conflict are read, so an import into a new archive never runs these.
struct PostgresHeldRecords {
    let connection: PostgresConnection

    func messages(_ ids: Set<String>) async throws -> [String: NotMerged.HeldMessage] {
        let rows = try await connection.query(
            """
            SELECT m.id, m.content_hash, m.last_seen_at, m.deleted_at, m.erased_at IS NOT NULL,
                coalesce((SELECT array_agg(h.user_id) FROM message_hides h WHERE h.message_id = m.id), '{}')
            FROM messages m WHERE m.id = ANY(\(Array(ids)))
            """, logger: PostgresArchive.silent)
        var held: [String: NotMerged.HeldMessage] = [:]
        for try await (id, hash, lastSeen, deleted, erased, hidden) in rows.decode(
            (String, Data?, Int64, Int64?, Bool, [Int64]).self)
        {
            held[id] = NotMerged.HeldMessage(
                contentHash: hash ?? Data(), lastSeenAt: Int(lastSeen), deletedAt: deleted.map(Int.init),
                erased: erased, hiddenFor: Set(hidden.map(Int.init)))
        }
        return held
    }

    func dialog(_ id: String) async throws -> NotMerged.HeldDialog? {
        let rows = try await connection.query(
            """
            SELECT d.name, d.occupant_ids, d.last_seen_at, d.deleted_at, d.erased_at IS NOT NULL,
                coalesce((SELECT array_agg(h.user_id) FROM dialog_hides h WHERE h.dialog_id = d.id), '{}')
            FROM dialogs d WHERE d.id = \(id)
            """, logger: PostgresArchive.silent)
        for try await (name, occupants, lastSeen, deleted, erased, hidden) in rows.decode(
            (String?, String, Int64, Int64?, Bool, [Int64]).self)
        {
            return NotMerged.HeldDialog(
                name: name, occupantIDsJSON: occupants, lastSeenAt: Int(lastSeen), deletedAt: deleted.map(Int.init),
                erased: erased, hiddenFor: Set(hidden.map(Int.init)))
        }
        return nil
    }

    func user(_ id: Int) async throws -> NotMerged.HeldUser? {
        let rows = try await connection.query(
            "SELECT login, full_name, email, last_seen_at, erased_at IS NOT NULL FROM users WHERE id = \(id)",
            logger: PostgresArchive.silent)
        for try await (login, fullName, email, lastSeen, erased) in rows.decode(
            (String?, String?, String?, Int64, Bool).self)
        {
            return NotMerged.HeldUser(
                login: login, fullName: fullName, email: email, lastSeenAt: Int(lastSeen), erased: erased)
        }
        return nil
    }
}
