import Archive
import Foundation
import QueryLanguage

/// The reads of every SQL backend, written once: search, count, explain, context, statistics, browse,
/// crawl state, runs, files, audit and export snapshots over the archive's tables.
///
/// A backend conforms by saying how to run reads (``sql``) and gets every read of ``ArchiveReader`` but the
/// few only it can answer (its storage size, a constant-time change marker). Statements are built as
/// ``SQLFragment`` values against the backend's ``SQLDialect``; rows are decoded here.
public protocol SQLArchiveReading: ArchiveReader {
    /// How this backend runs the shared reads.
    var sql: any SQLDatabase { get }
}

/// Column lists and row decoders shared by the reads.
enum Columns {
    /// The columns of ``ArchivedMessage``, in the order ``message(_:)`` reads them.
    static let message = messageColumns(raw: "m.raw")
    /// A message with its dialog's name and type and its sender's and recipient's names.
    static let hit = hitColumns(raw: "m.raw")
    /// ``message`` with an empty text in place of the server's record (exports that do not write it).
    static let messageWithoutRaw = messageColumns(raw: "''")

    private static func messageColumns(raw: String) -> String {
        """
        m.id, m.dialog_id, m.sender_id, m.recipient_id, m.date_sent, m.created_at, m.updated_at, m.text,
        m.attachments, m.custom, \(raw), m.first_seen_at, m.last_seen_at, m.edited, m.deleted_at, m.hidden_for, \
        m.deleted_evidence
        """
    }

    private static func hitColumns(raw: String) -> String {
        "\(messageColumns(raw: raw)), d.name, d.type, u.login, u.full_name, r.login, r.full_name"
    }
    static let hitSource = """
        messages m LEFT JOIN dialogs d ON d.id = m.dialog_id LEFT JOIN users u ON u.id = m.sender_id \
        LEFT JOIN users r ON r.id = m.recipient_id
        """
    /// Every column of `attachment_files`, in ``file(_:)``'s order.
    static let file = """
        id, key, uid, blob_id, url, name, type, declared_size, declared_type, status, sha256, size, content_type,
        source, fetched_at, attempts, last_error, first_seen_at
        """

    static func message(_ row: any SQLRow) -> ArchivedMessage {
        ArchivedMessage(
            id: row[0], dialogID: row[1], senderID: row[2], recipientID: row[3], dateSent: row[4],
            createdAt: row[5], updatedAt: row[6], text: row[7], attachmentsJSON: row[8], customJSON: row[9],
            raw: row[10], firstSeenAt: row[11], lastSeenAt: row[12], edited: row[13], deletedAt: row[14],
            hiddenFor: HiddenFor.decode(row[15]), deletionEvidence: row[16])
    }

    static func hit(_ row: any SQLRow) -> SearchHit {
        SearchHit(
            message: message(row), dialogName: row[17], dialogType: row[18], senderLogin: row[19],
            senderName: row[20], recipientLogin: row[21], recipientName: row[22])
    }

    static func file(_ row: any SQLRow) -> ArchivedFile {
        ArchivedFile(
            key: row[1], uid: row[2], blobID: row[3], url: row[4], name: row[5], type: row[6], declaredSize: row[7],
            declaredContentType: row[8], status: FileStatus(rawValue: row[9]) ?? .listed, sha256: row[10],
            size: row[11], contentType: row[12], source: row[13], fetchedAt: row[14], attempts: row[15],
            lastError: row[16], firstSeenAt: row[17])
    }

    /// The hits of the messages with these word keys, by key (one statement).
    static func hits(keys: [Int64], on connection: any SQLConnection) throws -> [Int64: SearchHit] {
        guard !keys.isEmpty else { return [:] }
        var hits: [Int64: SearchHit] = [:]
        try connection.forEachCollected(
            "SELECT \(raw: hit), m.date_key FROM \(raw: hitSource) WHERE m.date_key IN (\(SQLFragment.list(keys)))",
            limit: nil
        ) { row in hits[row[23]] = Columns.hit(row) }
        return hits
    }

    /// The recorded files for these keys, ``SQLFragment/listLimit`` keys a statement (an export asks for a
    /// batch's keys at once, and one look-up each cost a twentieth of its reading thread).
    static func files(keys: some Collection<String>, on connection: any SQLConnection) throws -> [String: ArchivedFile]
    {
        var found: [String: ArchivedFile] = [:]
        for chunk in SQLFragment.lists(Array(Set(keys))) {
            try connection.forEachCollected(
                "SELECT \(raw: file) FROM attachment_files WHERE key IN (\(SQLFragment.list(chunk)))", limit: nil
            ) { row in
                let record = Columns.file(row)
                found[record.key] = record
            }
        }
        return found
    }
}

extension SQLArchiveReading {
    /// Runs a read that compiles `query`, turning the engine's "too complex" refusal into a positioned
    /// ``QueryLanguage/QueryError`` covering the query (exit code 2), never a raw database error.
    func reading<T: Sendable>(
        _ query: Query?, _ body: @escaping @Sendable (any SQLConnection) throws -> T
    ) async throws -> T {
        try await refusingTooComplex(query) { try await sql.read(body) }
    }

    /// ``reading(_:_:)`` of two parts that see the same archive, `second` perhaps at the same time as `first`
    /// (``SQLDatabase/read(_:beside:)``).
    func reading<First: Sendable, Second: Sendable>(
        _ query: Query, _ first: @escaping @Sendable (any SQLConnection) throws -> First,
        beside second: @escaping @Sendable (any SQLConnection) throws -> Second
    ) async throws -> (First, Second) {
        try await refusingTooComplex(query) { try await sql.read(first, beside: second) }
    }

    private func refusingTooComplex<T>(_ query: Query?, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as SQLTooComplexError {
            guard let query else { throw error }
            throw QueryError(
                position: 0, length: query.source.count,
                message: "the query is too complex for the archive's SQL engine (\(error.message))",
                hint: "split it into several searches, or use fewer alternatives (`in (a, b, c)` for many values)")
        }
    }
}
