import Archive

/// The names of dialogs and users met so far (forgotten past `limit` of each), for
/// ``SnapshotReads/forEachMessage(matching:raw:_:)``.
///
/// Each message's dialog name and type and its sender's and recipient's login and full name, as the `LEFT
/// JOIN`s of ``Columns/hitSource`` give them (`nil` for an id the archive has no row of), looked up a batch
/// at a time for the ids not met before. Joined in the export's statement they were three index look-ups a
/// message: `sqlite3` ran the statement of a million in 3.1–4.5 s with them, 2.0–2.7 s without
/// (docs/performance.md, *Export*). Kept between batches because a batch of a transcript meets the dialogs
/// and people of the one before; on PostgreSQL each look-up is a round trip.
struct MessageNames {
    private let limit: Int
    private var dialogs: [String: (name: String?, type: Int?)] = [:]
    private var users: [Int: (login: String?, name: String?)] = [:]

    init(limit: Int = 50_000) { self.limit = limit }

    /// Sets each hit's names, looking up (one statement per ``SQLFragment/listLimit`` ids) those not met yet.
    mutating func fill(_ hits: inout [SearchHit], on connection: any SQLConnection) throws {
        // Forgotten before the batch's missing ids are worked out, so every id of the batch gets looked up.
        if dialogs.count > limit { dialogs.removeAll() }
        if users.count > limit { users.removeAll() }
        var newDialogs: Set<String> = []
        var newUsers: Set<Int> = []
        for index in hits.indices {
            let message = hits[index].message
            if dialogs[message.dialogID] == nil { newDialogs.insert(message.dialogID) }
            if let sender = message.senderID, users[sender] == nil { newUsers.insert(sender) }
            if let recipient = message.recipientID, users[recipient] == nil { newUsers.insert(recipient) }
        }
        for id in newDialogs { dialogs[id] = (nil, nil) }
        for chunk in SQLFragment.lists(Array(newDialogs)) {
            try connection.forEachCollected(
                "SELECT id, name, type FROM dialogs WHERE id IN (\(SQLFragment.list(chunk)))", limit: nil
            ) { row in dialogs[row[0]] = (row[1], row[2]) }
        }
        for id in newUsers { users[id] = (nil, nil) }
        for chunk in SQLFragment.lists(Array(newUsers)) {
            try connection.forEachCollected(
                "SELECT id, login, full_name FROM users WHERE id IN (\(SQLFragment.list(chunk)))", limit: nil
            ) { row in users[row[0]] = (row[1], row[2]) }
        }
        for index in hits.indices {
            let dialog = dialogs[hits[index].message.dialogID]
            let sender = hits[index].message.senderID.flatMap { users[$0] }
            let recipient = hits[index].message.recipientID.flatMap { users[$0] }
            hits[index].dialogName = dialog?.name
            hits[index].dialogType = dialog?.type
            hits[index].senderLogin = sender?.login
            hits[index].senderName = sender?.name
            hits[index].recipientLogin = recipient?.login
            hits[index].recipientName = recipient?.name
        }
    }
}
