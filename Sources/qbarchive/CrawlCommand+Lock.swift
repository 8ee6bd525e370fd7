import Archive
import ArchivePostgres
import ArchiveSQLite
import ArgumentParser
import Crawler
import Foundation

/// The lock that keeps one crawl at a time on an archive: a lock file beside a SQLite archive, a session
/// advisory lock on a PostgreSQL one. Both end with the process, so a crawl killed at any instant leaves none.
enum CrawlLock {
    case file(ArchiveLock)
    /// Held by a session of the crawl's own: the server releases it when the process ends.
    case session(PostgresCrawlLock)

    func release() {
        if case .file(let lock) = self { lock.release() }
    }
}

extension CrawlCommand {
    /// Takes the archive's crawl lock and opens the archive for writing (making it on a first crawl): exit 11
    /// while another crawl holds the lock, 10 when the archive cannot be opened or the lock file made.
    ///
    /// On PostgreSQL a worker of a shared crawl (`worker`) holds the lock shared with the other workers; any
    /// other crawl holds it alone.
    static func openLocked(
        _ archive: String, backend: any ArchiveBackend, worker: Bool, quiet: Bool, output: StandardStreams
    ) async throws -> (any ArchiveWriter, CrawlLock) {
        if ArchiveLocation.isPostgres(archive) {
            let store = try await open(archive, backend: backend, output: output)
            guard let postgres = store as? PostgresArchive, let lock = try await postgres.lockForCrawl(shared: worker)
            else {
                output.error(
                    worker
                        ? "error: a crawl that runs alone (--reconcile, --where, --dialog or --attachments files) "
                            + "holds \(store.location)'s crawl lock; workers can start when it ends\n"
                        : "error: another crawl (or crawl workers) holds \(store.location)'s crawl lock; "
                            + "try again when it ends\n")
                throw ExitCode(11)
            }
            return (store, .session(lock))
        }
        // A file that is not an archive is said before a lock file is made beside it.
        if FileManager.default.fileExists(atPath: archive) {
            do {
                try SQLiteArchive.checkExisting(at: archive)
            } catch {
                output.error("error: \(error.localizedDescription)\n")
                throw ExitCode(10)
            }
        }
        let lock: ArchiveLock
        do {
            lock = try ArchiveLock(archivePath: archive)
        } catch {
            output.error("error: \(error.localizedDescription)\n")
            // Only another crawl holding the lock is "locked" (11, nothing to do); a lock file that cannot
            // be created (read-only filesystem, permissions) means the archive cannot be written: 10.
            if error.archiveUnusable { throw ExitCode(10) }
            throw ExitCode(11)
        }
        if let previous = lock.tookOverFrom, !quiet {
            output.error("note: took over a lock left by pid \(previous), which is gone\n")
        }
        do {
            return (try await open(archive, backend: backend, output: output), .file(lock))
        } catch {
            lock.release()
            throw error
        }
    }

    private static func open(
        _ archive: String, backend: any ArchiveBackend, output: StandardStreams
    ) async throws -> any ArchiveWriter {
        do {
            return try await backend.openOrCreate(at: archive).archive
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            output.error("error: \(error.localizedDescription)\n")
            throw ExitCode(10)
        }
    }
}
