import Archive
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Archives a page of dialogs as received, in one transaction, and records occupant changes as membership
    /// history, as the SQLite archive does.
    ///
    /// A dialog seen for the first time opens a membership period for each occupant; later, an occupant who
    /// appears opens one and an occupant who is gone closes theirs (observation times). A dialog seen again loses
    /// its tombstone. An erased dialog keeps its pseudonym (name, photo, data, raw), and a dialog's copy of its
    /// last message is dropped (`"last_message": null`) when that message or its sender is erased.
    public func storeDialogs(_ items: [(Dialog, JSONValue)], observedAt time: Int) async throws -> UpsertCounts {
        guard !items.isEmpty else { return UpsertCounts() }
        let lastMessageIDs = items.compactMap { $0.0.lastMessage == nil ? nil : $0.0.lastMessageID }
            .map(SQLiteText.cut)
        let lastMessageUsers = items.compactMap { $0.0.lastMessage == nil ? nil : $0.0.lastMessageUserID }
        let ids = items.map { SQLiteText.cut($0.0.id) }
        let privateOccupants = Array(
            Set(
                items.filter { $0.0.type == .private && ($0.0.name != nil || $0.0.photo != nil) }
                    .flatMap(\.0.occupantIDs)))
        return try await transaction { connection in
            let erasedOccupants = Set(
                try await connection.ints(
                    "SELECT id FROM users WHERE id = ANY(\(privateOccupants)) AND erased_at IS NOT NULL"))
            let erasedMessages = Set(
                try await connection.strings(
                    "SELECT id FROM messages WHERE id = ANY(\(lastMessageIDs)) AND erased_at IS NOT NULL"))
            let erasedUsers = Set(
                try await connection.ints(
                    "SELECT id FROM users WHERE id = ANY(\(lastMessageUsers)) AND erased_at IS NOT NULL"))
            var stored: [String: (raw: String, erased: Bool)] = [:]
            let rows = try await connection.query(
                "SELECT id, raw, erased_at IS NOT NULL FROM dialogs WHERE id = ANY(\(ids))", logger: Self.silent)
            for try await (id, raw, erased) in rows.decode((String, String, Bool).self) { stored[id] = (raw, erased) }

            var counts = UpsertCounts()
            for (received, faced) in items {
                // An erased person's private dialogs keep no name or photo (``PrivateDialogFace``).
                let (dialog, record) = PrivateDialogFace.cleared(received, record: faced) {
                    erasedOccupants.contains($0)
                }
                let id = SQLiteText.cut(dialog.id)
                let erasedLast =
                    dialog.lastMessage != nil
                    && (dialog.lastMessageID.map { erasedMessages.contains(SQLiteText.cut($0)) } == true
                        || dialog.lastMessageUserID.map(erasedUsers.contains) == true)
                let raw = Self.withoutLastMessage(record, if: erasedLast).jsonString
                let columns = DialogColumns(dialog, raw: raw)
                switch stored[id] {
                case nil:
                    try await connection.run(columns.insert(id: id, time: time))
                    stored[id] = (raw, false)
                    counts.new += 1
                case let archived? where archived.raw != raw:
                    try await connection.run(columns.update(id: id, time: time))
                    if !archived.erased { stored[id] = (raw, false) }
                    counts.changed += 1
                case .some:
                    try await connection.run(
                        "UPDATE dialogs SET last_seen_at = \(Int64(time)), deleted_at = NULL WHERE id = \(id)")
                    counts.unchanged += 1
                }
                try await Self.recordMembership(
                    dialogID: id, occupants: Set(dialog.occupantIDs), time: time, connection: connection)
            }
            return counts
        }
    }

    /// The dialog's record without its copy of the last message (`"last_message": null`) when `erased`.
    private static func withoutLastMessage(_ raw: JSONValue, if erased: Bool) -> JSONValue {
        guard erased, case .object(var members) = raw else { return raw }
        members["last_message"] = .null
        return .object(members)
    }

    /// Opens periods for new occupants and closes those of occupants who are gone, inside the caller's
    /// transaction; new periods are numbered in ascending user order, as on SQLite.
    static func recordMembership(
        dialogID: String, occupants: Set<Int>, time: Int, connection: PostgresConnection
    ) async throws {
        let open = Set(
            try await connection.ints(
                """
                SELECT user_id FROM dialog_membership WHERE dialog_id = \(dialogID) AND left_observed_at IS NULL
                """))
        let time = Int64(time)
        let joining = occupants.subtracting(open).sorted()
        if !joining.isEmpty {
            try await connection.run(
                """
                INSERT INTO dialog_membership (dialog_id, user_id, joined_observed_at)
                SELECT \(dialogID), user_id, \(time) FROM unnest(\(joining)::bigint[]) WITH ORDINALITY AS j (user_id, n)
                ORDER BY n
                """)
        }
        let leaving = open.subtracting(occupants).sorted()
        if !leaving.isEmpty {
            try await connection.run(
                """
                UPDATE dialog_membership SET left_observed_at = \(time)
                WHERE dialog_id = \(dialogID) AND user_id = ANY(\(leaving)) AND left_observed_at IS NULL
                """)
        }
    }
}

extension PostgresConnection {
    /// The first column of every row `query` selects, as text.
    func strings(_ query: PostgresQuery) async throws -> [String] {
        var values: [String] = []
        for try await value in try await self.query(query, logger: PostgresArchive.silent).decode(String.self) {
            values.append(value)
        }
        return values
    }

    /// The first column of every row `query` selects, as integers.
    func ints(_ query: PostgresQuery) async throws -> [Int] {
        var values: [Int] = []
        for try await value in try await self.query(query, logger: PostgresArchive.silent).decode(Int.self) {
            values.append(value)
        }
        return values
    }
}
