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
        try await index(lists: [attachments])
    }

    /// Lists the files named by each attachment list in turn, with one statement: a key's first attachment
    /// gives its row, and rows get their `id`s in that order, as one statement per attachment gave them.
    func index(lists: [[Attachment]]) async throws {
        var seen: Set<String> = []
        var keys: [String] = []
        var uids: [String?] = []
        var blobIDs: [String?] = []
        var urls: [String?] = []
        var names: [String?] = []
        var types: [String?] = []
        var sizes: [Int?] = []
        var declaredTypes: [String?] = []
        for attachment in lists.joined() {
            guard let key = AttachmentKey.of(attachment).map(SQLiteText.cut), seen.insert(key).inserted else {
                continue
            }
            keys.append(key)
            uids.append(SQLiteText.cut(attachment.uid))
            blobIDs.append(SQLiteText.cut(attachment.id))
            urls.append(SQLiteText.cut(attachment.url))
            names.append(SQLiteText.cut(attachment.name))
            types.append(SQLiteText.cut(attachment.type))
            sizes.append(attachment.size)
            declaredTypes.append(
                SQLiteText.cut(
                    attachment.extra["content-type"]?.stringValue ?? attachment.extra["content_type"]?.stringValue))
        }
        guard !keys.isEmpty else { return }
        // The NOT EXISTS spares the identity a number for each key already listed (ON CONFLICT would use one
        // up), so `id`s follow SQLite's; keys are distinct within the statement.
        try await connection.run(
            """
            INSERT INTO attachment_files (key, uid, blob_id, url, name, type, declared_size, declared_type,
                first_seen_at)
            SELECT key, uid, blob_id, url, name, type, declared_size, declared_type, \(Int64(time))
            FROM unnest(\(keys)::text[], \(NullableArray(uids))::text[], \(NullableArray(blobIDs))::text[],
                \(NullableArray(urls))::text[], \(NullableArray(names))::text[], \(NullableArray(types))::text[],
                \(NullableArray(sizes))::bigint[], \(NullableArray(declaredTypes))::text[])
                WITH ORDINALITY AS f (key, uid, blob_id, url, name, type, declared_size, declared_type, n)
            WHERE NOT EXISTS (SELECT 1 FROM attachment_files a WHERE a.key = f.key)
            ORDER BY n
            ON CONFLICT (key) DO NOTHING
            """)
    }

    /// Messages (then revisions) read per statement by ``indexAll()``.
    static let batch = 1_000

    /// Lists the files of every archived message and revision that names one (after a `--attachments none`
    /// run): messages in `rowid` order, then revisions in `id` order, as SQLite reads them.
    ///
    /// - Returns: how many messages and revisions with attachments were read.
    func indexAll() async throws -> Int {
        var read = 0
        var lists: [[Attachment]] = []
        try await connection.forEachAttachmentList { text in
            guard let array = try? JSONValue(parsing: Array(text.utf8)).arrayValue else { return }
            lists.append(array.compactMap { try? Attachment(json: $0) })
            read += 1
            if lists.count == Self.batch {
                try await index(lists: lists)
                lists.removeAll(keepingCapacity: true)
            }
        }
        try await index(lists: lists)
        return read
    }
}
