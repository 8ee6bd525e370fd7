import GRDB

extension SnapshotReads {
    /// The recorded files for these keys, as of the snapshot (attachments of the messages being exported).
    ///
    /// A key the archive does not record (a page written by `crawl --attachments none`, not caught up yet)
    /// is absent from the result.
    func files(keys: some Collection<String>) throws -> [String: ArchivedFile] {
        guard !keys.isEmpty else { return [:] }
        return try SQLiteArchive.files(keys: keys, db)
    }
}
