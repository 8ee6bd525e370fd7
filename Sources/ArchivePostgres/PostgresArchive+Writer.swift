import Archive

/// The writer's acts are in `Writer/`, one file per topic: pages, dialogs, users, runs, crawl state, tombstones,
/// hides, files, the audit log; the acts PostgreSQL does not have yet refuse with ``ArchiveError/unsupported(_:)``.
extension PostgresArchive: ArchiveWriter {}
