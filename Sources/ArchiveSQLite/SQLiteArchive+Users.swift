import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Archives users as received; a `{"user": {...}}` wrapper is unwrapped so `raw` is always the bare
    /// user object.
    ///
    /// Users are kept for attribution even after they leave every dialog; there are no user
    /// tombstones yet.
    public func storeUsers(_ items: [(User, JSONValue)], observedAt time: Int) async throws -> UpsertCounts {
        let users = items.map { user, raw in
            (user, (raw["user"].flatMap { $0.objectValue == nil ? nil : $0 } ?? raw).jsonString)
        }
        // An erased user's profile stays a pseudonym, whatever the server still says (`erase`).
        return try await pool.write { [users] db in
            var counts = UpsertCounts()
            let select = try db.cachedStatement(sql: "SELECT raw FROM users WHERE id = ?")
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO users (id, login, email, full_name, phone, created_at, updated_at, last_request_at,
                        custom_data, user_tags, raw, first_seen_at, last_seen_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO UPDATE SET login = excluded.login, email = excluded.email,
                        full_name = excluded.full_name, phone = excluded.phone, created_at = excluded.created_at,
                        updated_at = excluded.updated_at, last_request_at = excluded.last_request_at,
                        custom_data = excluded.custom_data, user_tags = excluded.user_tags, raw = excluded.raw,
                        last_seen_at = excluded.last_seen_at
                    WHERE users.erased_at IS NULL
                    """)
            for (user, raw) in users {
                let stored = try String.fetchOne(select, arguments: [user.id])
                if stored == nil {
                    counts.new += 1
                } else if stored == raw {
                    counts.unchanged += 1
                } else {
                    counts.changed += 1
                }
                try upsert.execute(arguments: [
                    user.id, user.login, user.email, user.fullName, user.phone, user.createdAt, user.updatedAt,
                    user.lastRequestAt, user.customData, user.userTags, raw, time, time,
                ])
            }
            return counts
        }
    }
}
