import Archive
import ArchivePostgres
import ArgumentParser
import Crawler
import Foundation

/// The crawl locks `qbarchive migrate` holds on both archives, so that no crawl writes either meanwhile: the lock
/// file beside a SQLite archive, the session advisory lock of a PostgreSQL one.
struct MigrateLocks {
    private let files: [ArchiveLock]

    /// Whether two locations name the same archive: the same file (after resolving links), or the same database
    /// on the same server.
    static func samePlace(_ a: String, _ b: String) throws -> Bool {
        switch (ArchiveLocation.isPostgres(a), ArchiveLocation.isPostgres(b)) {
        case (true, true):
            return try PostgresLocation(parsing: a).description == PostgresLocation(parsing: b).description
        case (false, false):
            func resolved(_ path: String) -> String {
                URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
            }
            return resolved(a) == resolved(b)
        default:
            return false
        }
    }

    /// Takes the lock file of each SQLite location: exit 11 while a crawl holds one, 10 when it cannot be made.
    static func takeFiles(_ locations: [String]) throws -> MigrateLocks {
        var taken: [ArchiveLock] = []
        for location in locations where !ArchiveLocation.isPostgres(location) {
            do {
                taken.append(try ArchiveLock(archivePath: location))
            } catch {
                for lock in taken { lock.release() }
                if error.archiveUnusable { throw CommandFailure(error.localizedDescription, code: ExitCode(10)) }
                throw CommandFailure(
                    error.localizedDescription + "; migrate when no crawl runs (stop the timer first)",
                    code: ExitCode(11))
            }
        }
        return MigrateLocks(files: taken)
    }

    /// Takes the crawl lock of each PostgreSQL archive: exit 11 while a crawl holds one.
    static func takeSessions(_ archives: [any ArchiveReader]) async throws -> SessionLocks {
        let held = SessionLocks()
        for case let archive as PostgresArchive in archives {
            guard let lock = try await archive.lockForCrawl() else {
                await held.release()
                throw CommandFailure(
                    "a crawl holds \(archive.location)'s crawl lock; migrate when no crawl runs (stop the timer first)",
                    code: ExitCode(11))
            }
            await held.add(lock)
        }
        return held
    }

    func release() {
        for lock in files { lock.release() }
    }
}

/// PostgreSQL crawl locks held for the migration's length, released once.
actor SessionLocks {
    private var locks: [PostgresCrawlLock] = []

    func add(_ lock: PostgresCrawlLock) { locks.append(lock) }

    func release() async {
        let held = locks
        locks = []
        for lock in held { await lock.unlock() }
    }
}
