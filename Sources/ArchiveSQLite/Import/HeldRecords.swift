import Archive
import Foundation
import GRDB

/// Reads what the archive holds of a record an import found already there, for ``NotMerged``'s comparison: only
/// records that conflict are read, so an import into a new archive never runs these.
struct HeldRecords {
    let db: Database

    func message(_ id: String) throws -> NotMerged.HeldMessage? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT content_hash, last_seen_at, deleted_at, erased_at IS NOT NULL,
                    (SELECT group_concat(user_id) FROM message_hides WHERE message_id = ?1)
                FROM messages WHERE id = ?1
                """)
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return NotMerged.HeldMessage(
            contentHash: row[0] ?? Data(), lastSeenAt: row[1], deletedAt: row[2], erased: row[3],
            hiddenFor: Self.users(row[4]))
    }

    func dialog(_ id: String) throws -> NotMerged.HeldDialog? {
        let statement = try db.cachedStatement(
            sql: """
                SELECT name, occupant_ids, last_seen_at, deleted_at, erased_at IS NOT NULL,
                    (SELECT group_concat(user_id) FROM dialog_hides WHERE dialog_id = ?1)
                FROM dialogs WHERE id = ?1
                """)
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return NotMerged.HeldDialog(
            name: row[0], occupantIDsJSON: row[1], lastSeenAt: row[2], deletedAt: row[3], erased: row[4],
            hiddenFor: Self.users(row[5]))
    }

    func user(_ id: Int) throws -> NotMerged.HeldUser? {
        let statement = try db.cachedStatement(
            sql: "SELECT login, full_name, email, last_seen_at, erased_at IS NOT NULL FROM users WHERE id = ?")
        guard let row = try Row.fetchOne(statement, arguments: [id]) else { return nil }
        return NotMerged.HeldUser(
            login: row[0], fullName: row[1], email: row[2], lastSeenAt: row[3], erased: row[4])
    }

    /// `group_concat`'s list of user ids.
    private static func users(_ list: String?) -> Set<Int> {
        Set((list ?? "").split(separator: ",").compactMap { Int($0) })
    }
}
