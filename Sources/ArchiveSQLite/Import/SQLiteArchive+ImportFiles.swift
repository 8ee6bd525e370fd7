import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Records what a bundle says of its attachments' files, inside the import's transaction (after the
    /// messages and revisions that reference them, whose files ``FileIndexer`` has just listed).
    ///
    /// A file the import put in the store becomes `ok` with its source, unless the archive has it already;
    /// a status that explains an absence (too large, gone, external, failed) replaces only `listed`, so an
    /// existing archive never loses what it knows. `listed` changes nothing.
    static func importFiles(_ files: [ImportedFile], time: Int, db: Database) throws {
        guard !files.isEmpty else { return }
        let stored = try db.cachedStatement(
            sql: """
                UPDATE attachment_files SET status = 'ok', sha256 = ?, size = ?, content_type = ?, source = ?,
                    fetched_at = ?, last_error = NULL
                WHERE key = ? AND status <> 'ok'
                """)
        let absent = try db.cachedStatement(
            sql: """
                UPDATE attachment_files SET status = ?, size = COALESCE(?, size), last_error = ?
                WHERE key = ? AND status = 'listed'
                """)
        for file in files {
            switch file.status {
            case .ok:
                guard let sha256 = file.sha256, let size = file.size, let source = file.source else { continue }
                try stored.execute(arguments: [sha256, size, file.contentType, source, time, file.key])
            case .listed:
                continue
            case .tooLarge, .gone, .external, .failed:
                let size = file.status == .tooLarge ? file.size : nil
                let reason = "\(file.status.rawValue) in the archive the imported bundle came from"
                try absent.execute(arguments: [file.status.rawValue, size, reason, file.key])
            }
        }
    }

    /// Lists the files of imported revisions' attachments (messages list theirs as they are inserted).
    static func indexImportedFiles(_ revisions: [MessageRevision], indexer: FileIndexer) throws {
        for revision in revisions where revision.attachmentsJSON != "[]" {
            guard let array = try? JSONValue(parsing: Array(revision.attachmentsJSON.utf8)).arrayValue else {
                continue
            }
            try indexer.index(array.compactMap { try? Attachment(json: $0) })
        }
    }
}
