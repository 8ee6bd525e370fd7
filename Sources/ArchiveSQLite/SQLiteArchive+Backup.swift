import Archive
import Foundation
import GRDB

extension SQLiteArchive {
    /// Copies the archive into a new file at `target`, consistent as of one instant, while crawls and the
    /// service go on writing and reading; then checks the copy.
    ///
    /// Uses SQLite's online backup API inside one read transaction (one step: the copy is the snapshot the
    /// transaction sees, whatever is written meanwhile — what a `cp` of the file and its WAL cannot promise).
    /// The copy is made under a temporary name beside `target`, opened as an archive and checked (`PRAGMA
    /// integrity_check` and both full-text indexes' own check, ``integrityProblems()``), its WAL folded in,
    /// synced, and only then put under `target`: with `link(2)`, which refuses an existing file, unless
    /// `replace`. A copy that fails its check is removed and the problems thrown.
    ///
    /// - Throws: ``ArchiveError/alreadyExists(path:)`` when `target` exists and `replace` is false;
    ///   ``ArchiveError/backupFailed(path:reason:)`` when the copy could not be made or is not sound.
    public func backup(to target: String, replace: Bool) async throws -> ArchiveBackup {
        let files = FileManager.default
        if !replace, files.fileExists(atPath: target) { throw ArchiveError.alreadyExists(path: target) }
        let started = ContinuousClock.now
        let temporary = target + ".backup-" + UUID().uuidString.lowercased()
        func removeTemporary() {
            // The copy is written in rollback-journal mode first: a failed copy leaves `-journal` too.
            for suffix in ["", "-journal", "-wal", "-shm"] { try? files.removeItem(atPath: temporary + suffix) }
        }
        var pages = 0
        do {
            // Made first, owner-only (``PrivateFiles``): SQLite would create it with the umask's mode.
            let failure = PrivateFiles.createEmpty(at: temporary)
            guard failure == 0 else {
                throw ArchiveError.backupFailed(path: target, reason: String(cString: strerror(failure)))
            }
            let destination = try DatabaseQueue(path: temporary)
            try pool.backup(to: destination) { progress in pages = progress.totalPageCount }
            try destination.close()
        } catch {
            removeTemporary()
            throw ArchiveError.backupFailed(path: target, reason: Self.reason(error))
        }
        let problems: [String]
        let copy: SQLiteArchive
        do {
            copy = try SQLiteArchive.open(at: temporary)
            problems = try await copy.integrityProblems()
            try await copy.pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
            try copy.close()
        } catch {
            removeTemporary()
            throw ArchiveError.backupFailed(path: target, reason: "the copy could not be checked: \(error)")
        }
        guard problems.isEmpty else {
            removeTemporary()
            throw ArchiveError.backupFailed(
                path: target, reason: "the copy is not sound: " + problems.prefix(5).joined(separator: "; "))
        }
        let descriptor = Glibc.open(temporary, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            Glibc.close(descriptor)
        }
        let placed = replace ? rename(temporary, target) : link(temporary, target)
        let failure = errno
        removeTemporary()
        guard placed == 0 else {
            if failure == EEXIST { throw ArchiveError.alreadyExists(path: target) }
            throw ArchiveError.backupFailed(path: target, reason: String(cString: strerror(failure)))
        }
        let bytes = (try? files.attributesOfItem(atPath: target)[.size] as? Int) ?? 0
        return ArchiveBackup(
            path: target, bytes: bytes, pages: pages, seconds: Self.seconds(since: started))
    }

    /// Why a copy failed, in words: a full disk stops the backup API with `SQLITE_FULL`, which GRDB reports with
    /// the destination's message, "not an error".
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_FULL: return "the disk holding the copy is full"
        case .SQLITE_IOERR: return "the copy could not be written (I/O error: \(error.message ?? "unknown"))"
        default: return "\(error)"
        }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = start.duration(to: .now)
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}
