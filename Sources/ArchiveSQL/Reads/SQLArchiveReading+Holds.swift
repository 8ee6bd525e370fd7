import Archive

extension SQLArchiveReading {
    /// The id of the user with `login`, or `nil`.
    public func userID(login: String) async throws -> Int? {
        try await sql.read { connection in try connection.fetchInt("SELECT id FROM users WHERE login = \(login)") }
    }

    /// Whether `id` is an archived user or the sender of an archived message.
    public func knowsUser(id: Int) async throws -> Bool {
        try await sql.read { connection in
            try connection.fetchInt(
                "SELECT 1 FROM users WHERE id = \(id) UNION ALL SELECT 1 FROM messages WHERE sender_id = \(id) LIMIT 1"
            ) != nil
        }
    }

    /// Every hold, in force or released, oldest first.
    public func holds() async throws -> [LegalHold] {
        try await sql.read { connection in
            try connection.fetchAll(
                """
                SELECT id, kind, target, reason, created_at, released_at, release_reason FROM holds ORDER BY id
                """
            ) { row -> LegalHold? in
                guard let kind = LegalHold.Kind(rawValue: row[1]) else { return nil }
                return LegalHold(
                    id: row[0], kind: kind, target: row[2], reason: row[3], createdAt: row[4], releasedAt: row[5],
                    releaseReason: row[6])
            }.compactMap { $0 }
        }
    }
}
