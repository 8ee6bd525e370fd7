import Archive

/// The writer's acts are in `Writer/`, one file per topic: pages, dialogs, users, runs, crawl state, tombstones,
/// hides, files, the audit log, imports and the rows a migration copies, erasure and legal holds, and the leases
/// of crawl workers. `backup` refuses (``ArchiveError/unsupported(_:)``): PostgreSQL's own tools back it up.
extension PostgresArchive: ArchiveWriter {}
