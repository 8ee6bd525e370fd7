import Archive
import ArchivePostgres
import ArchiveTestSupport
import Foundation
import GRDB
import PostgresNIO
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// A PostgreSQL archive and a SQLite archive given the same writes, to compare what they store column by column.
///
/// Both start with ``ArchiveFixture``'s two group dialogs (occupants 1, 2 and 3), stored at its base time.
struct WriterPair {
    let fixture: ArchiveFixture
    let location: PostgresLocation
    let postgres: PostgresArchive

    var sqlite: SQLiteArchive { fixture.sqlite }

    static func make() async throws -> WriterPair {
        let fixture = try await ArchiveFixture(backend: .sqlite)
        let location = try await SharedCluster.database()
        let postgres = try await PostgresArchive.open(location, now: ArchiveFixture.baseTime)
        let dialogs = try [ArchiveFixture.dialogID, ArchiveFixture.otherDialogID].map { id in
            let json = ArchiveFixture.dialog(id).json
            return (try Dialog(json: json), json)
        }
        _ = try await postgres.storeDialogs(dialogs, observedAt: ArchiveFixture.baseTime)
        return WriterPair(fixture: fixture, location: location, postgres: postgres)
    }

    /// Stores `messages` as one page of `dialogID` on both, with a cursor at the last one; both counts.
    @discardableResult
    func write(
        _ messages: [Message], dialogID: String = ArchiveFixture.dialogID, at time: Int = ArchiveFixture.baseTime
    ) async throws -> (postgres: PageCounts, sqlite: PageCounts) {
        let items = try messages.map { message in (try Message(json: message.json), message.json) }
        let cursor = CrawlCursor().advanced(over: messages)
        let postgres = try await postgres.storeMessages(
            items, dialogID: dialogID, cursor: cursor, observedAt: time, indexFiles: true)
        let sqlite = try await sqlite.storeMessages(
            items, dialogID: dialogID, cursor: cursor, observedAt: time, indexFiles: true)
        return (postgres, sqlite)
    }

    /// Every row of `table` on each backend, in `order`, each column as text (`∅` for `NULL`, blobs in hex).
    func rows(_ table: String, _ columns: [String], blobs: Set<String> = [], order: String) async throws
        -> (postgres: [[String]], sqlite: [[String]])
    {
        let pgColumns = columns.map { column in
            blobs.contains(column) ? "COALESCE(encode(\(column), 'hex'), '∅')" : "COALESCE(\(column)::text, '∅')"
        }
        let liteColumns = columns.map { column in
            blobs.contains(column)
                ? "CASE WHEN \(column) IS NULL THEN '∅' ELSE lower(hex(\(column))) END"  // hex(NULL) is ''
                : "COALESCE(CAST(\(column) AS TEXT), '∅')"
        }
        let pgSQL = "SELECT \(pgColumns.joined(separator: ", ")) FROM \(table) ORDER BY \(order)"
        let liteSQL = "SELECT \(liteColumns.joined(separator: ", ")) FROM \(table) ORDER BY \(order)"
        let postgres = try await withClient(location) { client in
            var rows: [[String]] = []
            for try await row in try await client.query(PostgresQuery(unsafeSQL: pgSQL)) {
                rows.append(try row.map { cell in try cell.decode(String.self) })
            }
            return rows
        }
        let sqlite = try await sqlite.pool.read { db in
            try Row.fetchAll(db, sql: liteSQL).map { row in (0..<row.count).map { row[$0] as String } }
        }
        return (postgres, sqlite)
    }

    /// Expects `table`'s rows to be the same on both backends.
    func expectSameRows(
        _ table: String, _ columns: [String], blobs: Set<String> = [], order: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let (postgres, sqlite) = try await rows(table, columns, blobs: blobs, order: order)
        #expect(!postgres.isEmpty, "no rows in \(table)", sourceLocation: sourceLocation)
        #expect(postgres == sqlite, "\(table) differs", sourceLocation: sourceLocation)
    }

    /// The columns of `messages` the writer decides, compared between backends.
    static let messageColumns = [
        "id", "dialog_id", "sender_id", "recipient_id", "date_sent", "created_at", "updated_at", "text", "attachments",
        "custom", "read_ids", "delivered_ids", "raw", "content_hash", "first_seen_at", "last_seen_at", "edited",
        "deleted_at", "hidden_for", "deleted_evidence", "erased_at", "rowid",
    ]

    /// The columns of `message_revisions`.
    static let revisionColumns = [
        "message_id", "revision", "text", "attachments", "custom", "raw", "content_hash", "updated_at", "observed_at",
        "superseded_at",
    ]

    /// Every value of the first column `query` selects on the PostgreSQL archive.
    func postgresColumn<Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: Value.Type) async throws
        -> [Value]
    {
        try await withClient(location) { client in try await column(client, query, as: type) }
    }

    func close() async { await postgres.close() }
}
