import GRDB
import QuickBlox

/// Records the files a message's attachments name in `attachment_files`, inside the caller's transaction.
///
/// Like the full-text indexes, it is derived from the messages as they are written (a cached statement,
/// `ON CONFLICT DO NOTHING`), so a page and the files it references are committed together.
struct FileIndexer {
    private let insert: HotStatement
    private let time: Int

    init(db: Database, time: Int) throws {
        self.time = time
        insert = try HotStatement(
            db: db,
            sql: """
                INSERT INTO attachment_files (key, uid, blob_id, url, name, type, declared_size, declared_type,
                    first_seen_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (key) DO NOTHING
                """)
    }

    func index(_ attachments: [Attachment]) throws {
        for attachment in attachments {
            guard let key = AttachmentKey.of(attachment) else { continue }
            let declaredType =
                attachment.extra["content-type"]?.stringValue ?? attachment.extra["content_type"]?.stringValue
            try insert.execute { row in
                row.bind(1, key)
                row.bind(2, attachment.uid)
                row.bind(3, attachment.id)
                row.bind(4, attachment.url)
                row.bind(5, attachment.name)
                row.bind(6, attachment.type)
                row.bind(7, attachment.size)
                row.bind(8, declaredType)
                row.bind(9, time)
            }
        }
    }

    /// Every attachments list of every message and revision that has one.
    static let everyAttachmentList = """
        SELECT attachments FROM messages WHERE attachments <> '[]'
        UNION ALL SELECT attachments FROM message_revisions WHERE attachments <> '[]'
        """

    /// Indexes every attachment of every archived message and revision (the v5 migration, and a run after
    /// a `--attachments none` run).
    ///
    /// - Returns: how many messages and revisions with attachments were read.
    @discardableResult
    static func indexAll(_ db: Database, time: Int) throws -> Int {
        let indexer = try FileIndexer(db: db, time: time)
        var read = 0
        let rows = try Row.fetchCursor(db, sql: everyAttachmentList)
        while let row = try rows.next() {
            let text: String = row[0]
            guard let array = try? JSONValue(parsing: Array(text.utf8)).arrayValue else { continue }
            try indexer.index(array.compactMap { try? Attachment(json: $0) })
            read += 1
        }
        return read
    }
}
