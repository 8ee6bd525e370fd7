import Archive
import ArchiveSQLite
import Foundation
import QueryLanguage
import QuickBlox

@testable import ArchiveSQLite

/// A directory under the system temp directory, removed when the fixture goes away.
package final class TemporaryDirectory: Sendable {
    package let path: String

    package init() throws {
        path = NSTemporaryDirectory() + "qbarchive-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    package func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// An archive in a fresh temporary directory, with dialogs and message builders for tests.
package struct ArchiveFixture {
    package static let dialogID = objectID(0xD1A)
    package static let otherDialogID = objectID(0xD1B)
    /// 2024-03-01T12:00:00Z.
    package static let baseTime = 1_709_294_400

    package let directory: TemporaryDirectory
    package let archive: any ArchiveWriter
    package let backend: TestBackend

    /// The archive as SQLite, for the SQLite backend's own tests (which make it with ``TestBackend/sqlite``).
    package var sqlite: SQLiteArchive {
        guard let archive = archive as? SQLiteArchive else { preconditionFailure("not a SQLite archive: \(backend)") }
        return archive
    }

    /// Creates an archive holding two group dialogs with occupants 1, 2 and 3.
    package init(backend: TestBackend = .sqlite) async throws {
        directory = try TemporaryDirectory()
        self.backend = backend
        archive = try await backend.create(directory.path, Self.baseTime)
        try await archive.storeDialogs(
            rawItems: [Self.dialog(Self.dialogID).json, Self.dialog(Self.otherDialogID).json], at: Self.baseTime)
    }

    /// A 24-hex ObjectId for a number.
    package static func objectID(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 24 - hex.count) + hex
    }

    package static func dialog(_ id: String, occupants: [Int] = [1, 2, 3], name: String = "Team München") -> Dialog {
        Dialog(
            id: id, type: .group, name: name, userID: 1, occupantIDs: occupants, createdAt: baseTime - 86_400,
            updatedAt: baseTime)
    }

    /// A message of ``dialogID`` sent `offset` seconds after ``baseTime``.
    package static func message(
        _ number: Int, text: String?, offset: Int = 0, dialogID: String = dialogID, readIDs: [Int] = [1],
        updatedAt: Int? = nil, attachments: [Attachment] = [], custom: [String: JSONValue] = [:]
    ) -> Message {
        Message(
            id: objectID(number), chatDialogID: dialogID, text: text, dateSent: baseTime + offset,
            senderID: 1 + number % 3,
            recipientID: 0, attachments: attachments, readIDs: readIDs, deliveredIDs: [1, 2, 3],
            createdAt: baseTime + offset, updatedAt: updatedAt ?? baseTime + offset, extra: custom)
    }

    /// Writes messages as one page of ``dialogID`` with a cursor at the last one.
    @discardableResult
    package func write(_ messages: [Message], dialogID: String = dialogID, at time: Int = baseTime) async throws
        -> PageCounts
    {
        let cursor = CrawlCursor().advanced(over: messages)
        return try await archive.storeMessages(
            dialogID: dialogID, rawItems: messages.map(\.json), cursor: cursor, at: time)
    }

    /// Every message through a snapshot's stream, in export order.
    package func streamed(matching query: Query? = nil) async throws -> [SearchHit] {
        try await archive.withSnapshot { snapshot in
            var hits: [SearchHit] = []
            for try await batch in snapshot.messages(matching: query) { hits += batch.items }
            return hits
        }
    }
}

extension ArchiveFixture {
    /// The ids of the messages a query in the moderation language finds, newest first.
    package func find(_ text: String, limit: Int = 50) async throws -> [String] {
        let query = try QueryParser(now: Self.baseTime).parse(text)
        return try await archive.search(query, options: SearchOptions(limit: limit)).map(\.message.id)
    }
}
