import Archive
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Archives one crawled page of a dialog's messages and moves the dialog's cursor, in one transaction.
    ///
    /// The same decisions as the SQLite archive's (``MessageWriteAction``): a new message is inserted with its
    /// words; a changed text, attachments or custom parameters make a revision (`message_revisions`, `edited` + 1,
    /// new words); a change of read/delivered ids or `updated_at` refreshes the row without one; an older copy or
    /// an unchanged one only moves `last_seen_at`; a message seen again loses its tombstone; an erased one is
    /// never archived again. If the process dies at any instant, either the whole page and its cursor are in the
    /// archive or none of it is.
    ///
    /// - Parameters:
    ///   - messages: Each item's model and the raw JSON it was decoded from.
    ///   - dialogID: The dialog the page was fetched for; every item must belong to it.
    ///   - cursor: The dialog's cursor after this page; `nil` leaves `crawl_state` as it is.
    ///   - time: The observation time written to `first_seen_at`, `last_seen_at` and revisions.
    ///   - indexFiles: `false` leaves the files the attachments name out of `attachment_files`.
    /// - Throws: ``ArchiveError/messageOutsideDialog(messageID:messageDialogID:pageDialogID:)`` before anything is
    ///   written; the server's error (nothing written) otherwise.
    public func storeMessages(
        _ messages: [(Message, JSONValue)], dialogID: String, cursor: CrawlCursor?, observedAt time: Int,
        indexFiles: Bool
    ) async throws -> PageCounts {
        // Decoding, hashing and tokenizing happen before the transaction where they can.
        let contents = try MessageContent.page(messages, dialogID: dialogID)
        guard !contents.isEmpty || cursor != nil else { return PageCounts() }
        return try await transaction { connection in
            var writer = try await PostgresPageWriter(
                connection: connection, contents: contents, time: time, indexFiles: indexFiles)
            for content in contents { try await writer.write(content) }
            try await writer.finish()
            if let cursor {
                try await Self.saveCursor(
                    cursor, dialogID: SQLiteText.cut(dialogID), time: time, connection: connection)
            }
            return writer.counts
        }
    }

    /// Upserts the cursor columns of a dialog's `crawl_state` row.
    private static func saveCursor(
        _ cursor: CrawlCursor, dialogID: String, time: Int, connection: PostgresConnection
    ) async throws {
        let ids = JSONValue.array(cursor.idsAtDateSent.sorted().map(JSONValue.string)).jsonString
        try await connection.run(
            """
            INSERT INTO crawl_state (dialog_id, watermark_date_sent, watermark_ids, checked_updated_at, changed_at)
            VALUES (\(dialogID), \(cursor.dateSent), \(ids), \(cursor.checkedUpdatedAt), \(Int64(time)))
            ON CONFLICT (dialog_id) DO UPDATE SET
                watermark_date_sent = excluded.watermark_date_sent,
                watermark_ids = excluded.watermark_ids,
                checked_updated_at = excluded.checked_updated_at,
                changed_at = excluded.changed_at
            """)
    }
}
