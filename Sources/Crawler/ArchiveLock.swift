import Archive
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock on one archive, so two scheduled crawls never write it at once.
///
/// `flock` on `ARCHIVE.lock`: the kernel releases it when the holder dies, however it dies, so a lock
/// left by a killed crawl never blocks the next one. The file holds the holder's pid, so a refused
/// crawl can say who holds the lock, and a takeover from a dead holder can be reported.
public final class ArchiveLock: @unchecked Sendable {
    // The descriptor is written once in init and closed once in release/deinit.
    public let path: String
    private var descriptor: Int32
    /// The pid recorded by a previous holder that is no longer running, when the lock was taken over.
    public let tookOverFrom: Int32?

    /// Why the lock could not be taken.
    public enum Failure: Error, LocalizedError, Equatable {
        case held(path: String, pid: Int32?)
        case cannotOpen(path: String, reason: String)
        /// The archive file has other names (hard links): two names would take two locks, and SQLite keeps
        /// its log and shared memory beside the name it was opened by, so two crawls would corrupt it.
        case linked(path: String, links: Int)

        /// Whether the archive cannot be written at all (exit 10), rather than being busy (exit 11).
        public var archiveUnusable: Bool {
            if case .held = self { return false }
            return true
        }

        public var errorDescription: String? {
            switch self {
            case .held(let path, let pid):
                "the archive is locked by another crawl (\(pid.map { "pid \($0)" } ?? "unknown pid"); lock file \(path)); "
                    + "try again when it finishes"
            case .cannotOpen(let path, let reason):
                "cannot open the lock file \(path): \(reason)"
            case .linked(let path, let links):
                "\(path) has \(links) names (hard links): SQLite cannot keep an archive safe under two names, and "
                    + "two crawls could write it at once; keep one name (copy it with `qbarchive backup`), or use a "
                    + "symbolic link"
            }
        }
    }

    /// Takes the lock for the archive at `archivePath`, or throws ``Failure/held(path:pid:)`` at once.
    ///
    /// The lock is one per archive file, whatever name reaches it: a symbolic link is followed to the file it
    /// names (``lockPath(for:)``), and an archive file with several names (hard links) is refused.
    public init(archivePath: String) throws(Failure) {
        var status = stat()
        if stat(archivePath, &status) == 0, status.st_nlink > 1 {
            throw .linked(path: archivePath, links: Int(status.st_nlink))
        }
        path = Self.lockPath(for: archivePath)
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else {
            throw .cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        let previous = Self.readPID(descriptor)
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw .held(path: path, pid: previous)
        }
        if let previous, previous != getpid(), kill(previous, 0) != 0, errno == ESRCH {
            tookOverFrom = previous
        } else {
            tookOverFrom = nil
        }
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        _ = fsync(descriptor)
    }

    /// Releases the lock (also done on deinit and, by the kernel, on exit).
    public func release() {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    /// The pid of the crawl holding the lock of the archive at `archivePath`, when one is running; `nil`
    /// when none is. Reads the pid the holder wrote (a holder clears it when it lets go; a killed one leaves
    /// it) and asks the kernel whether that process lives — without taking the lock, so a monitoring check
    /// can never make a starting crawl find the archive locked.
    public static func liveHolder(archivePath: String) -> Int32? {
        let descriptor = open(lockPath(for: archivePath), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard let pid = readPID(descriptor), pid > 0 else { return nil }
        return kill(pid, 0) == 0 || errno == EPERM ? pid : nil
    }

    /// The lock file of the archive at `archivePath`: beside the file a symbolic link names (so two names of
    /// one archive take one lock), or beside the path as given when the archive does not exist yet.
    public static func lockPath(for archivePath: String) -> String {
        guard let resolved = realpath(archivePath, nil) else { return archivePath + ".lock" }
        defer { free(resolved) }
        return String(cString: resolved) + ".lock"
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
