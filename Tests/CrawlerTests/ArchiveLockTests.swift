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
