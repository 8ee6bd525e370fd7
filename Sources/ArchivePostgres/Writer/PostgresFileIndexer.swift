import Archive
import PostgresNIO
import QuickBlox

/// Records the files a message's attachments name in `attachment_files`, inside the caller's transaction, as the
/// SQLite archive's file indexer does: one row per attachment key, first seen at the page's time, never replaced.
struct PostgresFileIndexer {
    let connection: PostgresConnection
    let time: Int

    /// Lists the files `attachments` name (those with an ``AttachmentKey``), keeping rows already listed.
    func index(_ attachments: [Attachment]) async throws {
        for attachment in attachments {
            guard let key = AttachmentKey.of(attachment).map(SQLiteText.cut) else { continue }
            let declaredType = SQLiteText.cut(
                attachment.extra["content-type"]?.stringValue ?? attachment.extra["content_type"]?.stringValue)
            // The NOT EXISTS spares the identity a number for each key already listed (ON CONFLICT would use
            // one up), so `id`s follow SQLite's.
            try await connection.run(
                """
                INSERT INTO attachment_files (key, uid, blob_id, url, name, type, declared_size, declared_type,
                    first_seen_at)
                SELECT \(key), \(SQLiteText.cut(attachment.uid)), \(SQLiteText.cut(attachment.id)),
                    \(SQLiteText.cut(attachment.url)), \(SQLiteText.cut(attachment.name)),
                    \(SQLiteText.cut(attachment.type)), \(attachment.size), \(declaredType), \(Int64(time))
                WHERE NOT EXISTS (SELECT 1 FROM attachment_files WHERE key = \(key))
                ON CONFLICT (key) DO NOTHING
                """)
        }
    }

    /// Messages (then revisions) read per statement by ``indexAll()``.
    static let batch = 1_000

    /// Lists the files of every archived message and revision that names one (after a `--attachments none`
    /// run): messages in `rowid` order, then revisions in `id` order, as SQLite reads them.
    ///
    /// - Returns: how many messages and revisions with attachments were read.
    func indexAll() async throws -> Int {
        var read = 0
        try await connection.forEachAttachmentList { text in
            guard let array = try? JSONValue(parsing: Array(text.utf8)).arrayValue else { return }
            try await index(array.compactMap { try? Attachment(json: $0) })
            read += 1
        }
        return read
    }
}
