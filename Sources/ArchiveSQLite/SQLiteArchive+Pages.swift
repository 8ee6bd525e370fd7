import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Archives one crawled page of a dialog's messages and moves the dialog's cursor, atomically.
    ///
    /// Everything happens in one transaction: the messages, their revisions, both full-text
    /// indexes and `crawl_state`. If the process dies at any instant, either the whole page and
    /// its cursor are in the archive or none of it is, so a rerun resumes exactly where the last
    /// committed page left off. Pages of other dialogs that wait for the writer meanwhile share the
    /// transaction (``GroupCommit``); if it fails, each is written again alone, so a page fails only
    /// for its own reasons. It returns once its page is committed.
    ///
    /// Each item is stored as the server sent it (`raw`, canonical JSON). A message already
    /// archived is compared by content hash: changed text, attachments or custom parameters make
    /// a revision (the old version moves to `message_revisions` and the word indexes switch to the
    /// new text); a change of only read/delivered ids or `updated_at` refreshes those columns and
    /// `raw` without a revision; a message seen again unchanged only moves `last_seen_at`. A copy
    /// older than the archived one (smaller server `updated_at`) is ignored. A message seen again
    /// loses its tombstone: the server has it.
    ///
    /// The dialog must have been archived with ``storeDialogs(_:observedAt:)`` first.
    ///
    /// - Parameters:
    ///   - messages: Each item's model and the raw JSON it was decoded from (the crawler's client decodes
    ///     every page to read it; the archive does not decode it again).
    ///   - dialogID: The dialog the page was fetched for; every item must belong to it.
    ///   - cursor: The dialog's cursor after this page; `nil` leaves `crawl_state` as it is (pages
    ///     of the `updated_at` pass, which do not move the `date_sent` watermark).
    ///   - time: The observation time written to `first_seen_at`, `last_seen_at` and revisions.
    ///   - indexFiles: `false` leaves the files the attachments name out of `attachment_files` (a crawl with
    ///     `--attachments none`; call ``markFilesUnindexed()`` first so a later run catches up).
    /// - Throws: ``ArchiveError/messageOutsideDialog(messageID:messageDialogID:pageDialogID:)`` before
    ///   anything is written; a database error (nothing written) otherwise.
    public func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: CrawlCursor?, observedAt time: Int,
        indexFiles: Bool
    ) async throws -> PageCounts {
        // Decoding and hashing happen here, before the write transaction, off the writer's critical path.
        let contents = try MessageContent.page(messages, dialogID: dialogID)
        let page = PageWrite(
            contents: contents, dialogID: dialogID, cursor: cursor, time: time, indexFiles: indexFiles)
        return try await pages.submit(
            page,
            group: { group in try await pool.write { db in try Self.write(group, db: db) } },
            alone: { page in try await pool.write { db in try Self.write([page], db: db)[0] } })
    }

    /// Writes pages inside the open transaction, then the word index's entries of their new messages.
    ///
    /// The pages' cursors go first, before any message: the cursor's upsert is a statement SQLite runs in a
    /// statement savepoint, and FTS5 writes what it holds for the transaction into a new segment at every savepoint
    /// once it is part of the transaction. Saved after each page's messages, they cut a segment of the substring
    /// index per page (about 7 % of a crawl's CPU, on its bound, the writer; docs/performance.md, *a segment per
    /// transaction*). The transaction's final state is the same: the cursors are saved in the pages' order.
    private static func write(_ pages: [PageWrite], db: Database) throws -> [PageCounts] {
        for page in pages {
            if let cursor = page.cursor { try saveCursor(cursor, dialogID: page.dialogID, time: page.time, db: db) }
        }
        let words = try PendingWords(db: db)
        let counts = try pages.map { try write($0, db: db, words: words) }
        try words.flush()
        return counts
    }

    /// Writes one page's messages inside the open transaction (its cursor is saved before, with the others').
    private static func write(_ page: PageWrite, db: Database, words: PendingWords) throws -> PageCounts {
        var writer = try PageWriter(db: db, time: page.time, words: words, indexFiles: page.indexFiles)
        for content in page.contents { try writer.write(content) }
        if writer.changesFigures { try markStale([page.dialogID], db: db) }
        return writer.counts
    }

    /// Upserts the cursor columns of a dialog's `crawl_state` row.
    private static func saveCursor(_ cursor: CrawlCursor, dialogID: String, time: Int, db: Database) throws {
        let ids = JSONValue.array(cursor.idsAtDateSent.sorted().map(JSONValue.string)).jsonString
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO crawl_state (dialog_id, watermark_date_sent, watermark_ids, checked_updated_at, changed_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (dialog_id) DO UPDATE SET
                    watermark_date_sent = excluded.watermark_date_sent,
                    watermark_ids = excluded.watermark_ids,
                    checked_updated_at = excluded.checked_updated_at,
                    changed_at = excluded.changed_at
                """)
        try statement.execute(arguments: [dialogID, cursor.dateSent, ids, cursor.checkedUpdatedAt, time])
    }
}

/// A page of one dialog's messages on its way to the archive's writer.
struct PageWrite: Sendable {
    /// The most messages one transaction writes for the pages waiting together (``GroupCommit``): a hundred pages
    /// of QuickBlox's largest size.
    static let groupMessages = 10_000

    let contents: [MessageContent]
    let dialogID: String
    let cursor: CrawlCursor?
    let time: Int
    let indexFiles: Bool
}
