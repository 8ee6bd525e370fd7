import Archive
import ArchiveSQLite
import Foundation
import QueryLanguage
import QuickBlox

/// A small archive with hand-placed messages whose every figure is known (see docs/stats.md):
///
/// - users 1 Alice Martin (alice), 2 Bob Stone (bob), 3 a hostile name `<script>&"` (mallory);
/// - a private dialog P without a name (Alice and Bob), 7 messages with first-reply delays 300, 600,
///   3600 and 691,200 s; a group G with a hostile name, 4 messages (one with an image, one with an image
///   and a file, one edited twice, one deleted); a public dialog Q without messages;
/// - P was counted by a reconcile (6 messages, before p7 arrived), Q too (0), G never.
package struct StatsFixture {
    /// Monday 2024-03-04T00:00:00Z.
    package static let monday = 1_709_510_400
    /// Thursday 2024-02-29T23:59:59Z: the last second of February and of ISO week 2024-W09.
    package static let leapSecond = 1_709_251_199
    package static let hostile = "<script>&\""
    package static let privateID = id(0xA)
    package static let groupID = id(0xB)
    package static let publicID = id(0xC)
    /// When the fixture's crawl "ran"; the reconcile counted at `crawled + 10`, p7 arrived at `crawled + 20`.
    package static let crawled = 1_710_300_000

    package let directory: URL
    package let archive: any ArchiveReader

    package static func id(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 24 - hex.count) + hex
    }

    package static func make(backend: TestBackend = .sqlite) async throws -> StatsFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let archive = try await backend.create(directory.path, crawled)
        let users = [
            User(id: 1, login: "alice", fullName: "Alice Martin", createdAt: 0, updatedAt: 0),
            User(id: 2, login: "bob", fullName: "Bob Stone", createdAt: 0, updatedAt: 0),
            User(id: 3, login: "mallory", fullName: hostile, createdAt: 0, updatedAt: 0),
        ]
        try await archive.storeUsers(rawItems: users.map(\.json), at: crawled)
        let dialogs = [
            Dialog(
                id: privateID, type: .private, name: nil, userID: 1, occupantIDs: [1, 2], createdAt: 0, updatedAt: 0),
            Dialog(
                id: groupID, type: .group, name: hostile, userID: 1, occupantIDs: [1, 2, 3], createdAt: 0, updatedAt: 0),
            Dialog(
                id: publicID, type: .publicGroup, name: "Lobby", userID: 1, occupantIDs: [], createdAt: 0, updatedAt: 0),
        ]
        try await archive.storeDialogs(rawItems: dialogs.map(\.json), at: crawled)

        let nine = monday + 9 * 3600
        let p = [
            message(1, privateID, sender: 1, at: nine),
            message(2, privateID, sender: 1, at: nine + 60),
            message(3, privateID, sender: 2, at: nine + 360),  // reply after 300 s
            message(4, privateID, sender: 1, at: nine + 960),  // reply after 600 s
            message(5, privateID, sender: 2, at: nine + 960 + 3600),  // reply after 3,600 s
            message(6, privateID, sender: 2, at: monday + 11 * 3600),
        ]
        try await archive.storeMessages(dialogID: privateID, rawItems: p.map(\.json), cursor: nil, at: crawled)
        let image = Attachment(type: "image", id: "1")
        let file = Attachment(type: "file", id: "2")
        let g = [
            message(11, groupID, sender: 3, at: leapSecond, attachments: [image]),
            message(12, groupID, sender: 1, at: monday + 9 * 3600 + 1800, attachments: [image, file]),
            message(13, groupID, sender: 2, at: monday + 9 * 3600 + 2700),
            message(14, groupID, sender: 3, at: monday + 86_400 + 23 * 3600),
        ]
        try await archive.storeMessages(dialogID: groupID, rawItems: g.map(\.json), cursor: nil, at: crawled)
        for edit in 1...2 {
            let edited = message(
                13, groupID, sender: 2, at: monday + 9 * 3600 + 2700, text: "edit \(edit)", updatedAt: crawled + edit)
            try await archive.storeMessages(dialogID: groupID, rawItems: [edited.json], cursor: nil, at: crawled + edit)
        }
        _ = try await archive.tombstoneMessages(ids: [id(14)], at: crawled + 5)

        try await archive.recordServerCount(dialogID: privateID, count: 6, at: crawled + 10)
        try await archive.recordServerCount(dialogID: publicID, count: 0, at: crawled + 10)
        // p7 arrives after the reconcile: archived now, not at the count. Tuesday 2024-03-12, 11:00.
        let late = message(7, privateID, sender: 1, at: monday + 8 * 86_400 + 11 * 3600)  // reply after 691,200 s
        try await archive.storeMessages(dialogID: privateID, rawItems: [late.json], cursor: nil, at: crawled + 20)
        // The roll-ups refreshed, as a crawl run leaves them: the figures below are read from them.
        try await archive.settleAfterBulkChange()
        // Read back read-only, as `qbarchive stats` and the service open it.
        return StatsFixture(directory: directory, archive: try await backend.openReader(directory.path))
    }

    package static func message(
        _ number: Int, _ dialogID: String, sender: Int, at time: Int, text: String? = nil,
        attachments: [Attachment] = [], updatedAt: Int? = nil
    ) -> Message {
        Message(
            id: id(number), chatDialogID: dialogID, text: text ?? "message \(number)", dateSent: time,
            senderID: sender, recipientID: dialogID == privateID ? 3 - sender : 0, attachments: attachments,
            createdAt: time, updatedAt: updatedAt ?? time)
    }

    package func query(_ text: String) throws -> Query {
        try QueryParser(now: Self.crawled).parse(text)
    }

    package func remove() { try? FileManager.default.removeItem(at: directory) }
}
