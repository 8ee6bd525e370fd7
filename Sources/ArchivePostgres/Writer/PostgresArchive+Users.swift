import Archive
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Archives users as received, in one transaction; a `{"user": {...}}` wrapper is unwrapped so `raw` is always
    /// the bare user object. As on SQLite: an erased user's row keeps its pseudonym whatever the server says, and
    /// the counts compare each `raw` with the archived one (an erased user counts as changed and stays as it is).
    public func storeUsers(_ items: [(User, JSONValue)], observedAt time: Int) async throws -> UpsertCounts {
        let users = items.map { user, raw in
            (user, (raw["user"].flatMap { $0.objectValue == nil ? nil : $0 } ?? raw).jsonString)
        }
        guard !users.isEmpty else { return UpsertCounts() }
        let ids = users.map(\.0.id)
        return try await transaction { connection in
            // The archived raw of each user, and whether the upsert may rewrite it (not when erased).
            var stored: [Int: (raw: String, erased: Bool)] = [:]
            let rows = try await connection.query(
                "SELECT id, raw, erased_at IS NOT NULL FROM users WHERE id = ANY(\(ids))", logger: Self.silent)
            for try await (id, raw, erased) in rows.decode((Int, String, Bool).self) { stored[id] = (raw, erased) }
            var counts = UpsertCounts()
            let time = Int64(time)
            for (user, raw) in users {
                switch stored[user.id] {
                case nil: counts.new += 1
                case let archived? where archived.raw == raw: counts.unchanged += 1
                case .some: counts.changed += 1
                }
                if stored[user.id]?.erased != true { stored[user.id] = (raw, false) }
                try await connection.run(
                    """
                    INSERT INTO users (id, login, email, full_name, phone, created_at, updated_at, last_request_at,
                        custom_data, user_tags, raw, first_seen_at, last_seen_at)
                    VALUES (\(user.id), \(SQLiteText.cut(user.login)), \(SQLiteText.cut(user.email)),
                        \(SQLiteText.cut(user.fullName)), \(SQLiteText.cut(user.phone)), \(user.createdAt),
                        \(user.updatedAt), \(user.lastRequestAt), \(SQLiteText.cut(user.customData)),
                        \(SQLiteText.cut(user.userTags)), \(raw), \(time), \(time))
                    ON CONFLICT (id) DO UPDATE SET login = excluded.login, email = excluded.email,
                        full_name = excluded.full_name, phone = excluded.phone, created_at = excluded.created_at,
                        updated_at = excluded.updated_at, last_request_at = excluded.last_request_at,
                        custom_data = excluded.custom_data, user_tags = excluded.user_tags, raw = excluded.raw,
                        last_seen_at = excluded.last_seen_at
                    WHERE users.erased_at IS NULL
                    """)
            }
            return counts
        }
    }
}
