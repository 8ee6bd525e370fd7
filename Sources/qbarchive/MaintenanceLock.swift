import Archive
import ArchivePostgres
import Crawler

/// The archive's crawl lock, held by a command that rewrites the archive (erase, retain) for as long as it runs:
/// the lock file beside a SQLite archive, or a PostgreSQL archive's crawl lock taken exclusively (crawl workers
/// hold it shared, so the command starts only when no crawl runs, and no crawl starts until it ends).
enum MaintenanceLock {
    case file(ArchiveLock)
    /// Held by a session of `archive`'s pool, which the command writes through too; the server releases it
    /// when the process ends.
    case session(PostgresCrawlLock, archive: PostgresArchive)

    /// The archive to rewrite: the one that holds the lock on PostgreSQL (its pool keeps the lock's session
    /// alive), else a new writer; exit 10 when it cannot be opened.
    func writer(_ location: String) async throws -> any ArchiveWriter {
        switch self {
        case .file: return try await ArchiveLocation.writer(location)
        case .session(_, let archive): return archive
        }
    }

    /// Releases the lock file at once; a PostgreSQL lock is released by its session, when the process ends.
    func release() {
        if case .file(let lock) = self { lock.release() }
    }
}
