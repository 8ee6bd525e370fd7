import Foundation
import Testing

@testable import Crawler

@Suite("Archive lock")
struct ArchiveLockTests {
    static func temporaryArchive() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString).sqlite").path
    }

    @Test("A second lock is refused and names the holder's pid; after release it is free")
    func exclusive() throws {
        let archive = Self.temporaryArchive()
        defer { try? FileManager.default.removeItem(atPath: archive + ".lock") }
        let first = try ArchiveLock(archivePath: archive)
        #expect(first.tookOverFrom == nil)
        #expect(throws: ArchiveLock.Failure.held(path: archive + ".lock", pid: getpid())) {
            _ = try ArchiveLock(archivePath: archive)
        }
        first.release()
        let second = try ArchiveLock(archivePath: archive)
        second.release()
    }

    /// Two names of one archive once took two locks: two crawls wrote it at once, and through a hard link SQLite
    /// kept two logs and corrupted it.
    @Test("Every name of one archive takes the same lock; a hard-linked archive is refused")
    func oneLockWhateverTheName() throws {
        let archive = Self.temporaryArchive()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let symlink = directory.appendingPathComponent("via-link.sqlite").path
        let hardLink = directory.appendingPathComponent("hard.sqlite").path
        defer {
            for path in [archive, archive + ".lock", directory.path] {
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        try Data("archive".utf8).write(to: URL(fileURLWithPath: archive))
        try FileManager.default.createSymbolicLink(atPath: symlink, withDestinationPath: archive)

        let first = try ArchiveLock(archivePath: archive)
        #expect(ArchiveLock.lockPath(for: symlink) == ArchiveLock.lockPath(for: archive))
        #expect(ArchiveLock.liveHolder(archivePath: symlink) == getpid())
        #expect(throws: ArchiveLock.Failure.held(path: ArchiveLock.lockPath(for: archive), pid: getpid())) {
            _ = try ArchiveLock(archivePath: symlink)
        }
        first.release()
        let throughLink = try ArchiveLock(archivePath: symlink)
        #expect(throws: ArchiveLock.Failure.self) { _ = try ArchiveLock(archivePath: archive) }
        throughLink.release()

        #expect(link(archive, hardLink) == 0)
        for name in [archive, hardLink, symlink] {
            #expect(throws: ArchiveLock.Failure.linked(path: name, links: 2)) { _ = try ArchiveLock(archivePath: name) }
        }
        let failure = ArchiveLock.Failure.linked(path: hardLink, links: 2)
        #expect(failure.archiveUnusable && failure.localizedDescription.contains("hard links"))
    }

    @Test("A lock file left by a dead process is taken over and reported")
    func staleLock() async throws {
        let archive = Self.temporaryArchive()
        defer { try? FileManager.default.removeItem(atPath: archive + ".lock") }
        // A pid that existed and is gone: a finished child.
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        try "\(child.processIdentifier)\n".write(toFile: archive + ".lock", atomically: true, encoding: .utf8)
        let lock = try ArchiveLock(archivePath: archive)
        #expect(lock.tookOverFrom == child.processIdentifier)
        #expect(try String(contentsOfFile: archive + ".lock", encoding: .utf8) == "\(getpid())\n")
    }

    @Test("The refusal tells the user what to do")
    func message() {
        let text = ArchiveLock.Failure.held(path: "/x.lock", pid: 42).localizedDescription
        #expect(text.contains("pid 42"))
        #expect(text.contains("/x.lock"))
    }
}
