import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

@Suite("Checkpoints that grow with the archive")
struct CheckpointPolicyTests {
    @Test(arguments: [(0, 128), (127, 128), (128, 128), (300, 300), (512, 512), (513, 512), (1 << 30, 512)])
    func thresholdIsTheArchiveWithinBounds(archivePages: Int, expected: Int) {
        let policy = CheckpointPolicy(minimumPages: 128, maximumPages: 512)
        #expect(policy.threshold(archivePages: archivePages) == expected)
    }

    @Test(arguments: [
        (CheckpointPolicy.standard, 4096), (CheckpointPolicy(minimumPages: 1, maximumPages: 2), 512),
        (CheckpointPolicy(minimumPages: (1 << 24) - 1, maximumPages: (1 << 28) - 1), 65536),
    ])
    func policyTravelsInTheHooksContext(policy: CheckpointPolicy, pageSize: Int) throws {
        let context = try #require(UnsafeMutableRawPointer(bitPattern: policy.packed(pageSize: pageSize)))
        let unpacked = try #require(CheckpointPolicy.unpack(context))
        #expect(unpacked.0 == policy)
        #expect(unpacked.1 == pageSize)
    }

    /// Pages stored until the archive file is four times the policy's maximum, the log's frames read after every
    /// commit: the log is folded in only once it holds the threshold for the archive's size, and holds no more
    /// than that plus the one transaction that crossed it; it grows to the maximum once the archive has; every
    /// message is in the archive.
    @Test func logGrowsWithTheArchiveAndStopsAtTheMaximum() async throws {
        let policy = CheckpointPolicy(minimumPages: 128, maximumPages: 512)
        let directory = try TemporaryDirectory()
        let path = directory.file("archive.sqlite")
        let created = try SQLiteArchive.create(at: path)
        try created.close()
        let archive = try SQLiteArchive.open(at: path, progress: nil, checkpoints: policy)
        // Another process's view (as `serve` keeps): the log is not removed when the writer's run ends.
        let reader = try SQLiteArchive.openReadOnly(at: path)
        let dialog = ArchiveFixture.dialog(ArchiveFixture.dialogID)
        _ = try await archive.storeDialogs([(dialog, dialog.json)], observedAt: ArchiveFixture.baseTime)

        // The threshold the policy should apply, worked out here rather than by the code under test.
        func expected(_ archivePages: Int) -> Int {
            min(max(archivePages, policy.minimumPages), policy.maximumPages)
        }
        // The policy runs after a commit, so the log may pass the threshold by one transaction: a page of 100
        // messages adds 40–80 pages to the log here, up to about 220 when its commit merges full-text segments.
        let slack = 300
        // After the last commit: the log's frames, and the archive file as that commit's hook saw it.
        var last = (frames: try Self.logFrames(path), archivePages: 0)
        var archivePages = try Self.fileSize(path) / 4096
        var folds: [(frames: Int, archivePages: Int)] = []
        var stored = 0
        while archivePages < 4 * policy.maximumPages {
            let messages = (0..<100).map { index in
                let number = stored + index
                return ArchiveFixture.message(
                    number, text: "message \(number) about invoice \(number * 7919 % 10007) and a refund",
                    offset: number)
            }
            let cursor = CrawlCursor().advanced(over: messages)
            _ = try await archive.storeMessages(
                messages.map { ($0, $0.json) }, dialogID: ArchiveFixture.dialogID, cursor: cursor,
                observedAt: ArchiveFixture.baseTime, indexFiles: true)
            stored += messages.count
            // A log holding fewer frames than after the last commit was folded in by that commit's hook.
            let now = try Self.logFrames(path)
            if now < last.frames { folds.append(last) }
            #expect(
                now <= expected(archivePages) + slack,
                "after \(stored) messages the log holds \(now) pages, the archive file \(archivePages)")
            last = (now, archivePages)
            archivePages = try Self.fileSize(path) / 4096
        }
        #expect(folds.count >= 3)
        for fold in folds {
            #expect(
                fold.frames >= expected(fold.archivePages),
                "folded at \(fold.frames) pages of log beside \(fold.archivePages) of archive")
        }
        #expect(folds.contains { $0.frames >= policy.maximumPages }, "the log never grew to the maximum: \(folds)")
        let count = try await archive.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") }
        #expect(count == stored)
        let seen = try await reader.pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM messages") }
        #expect(seen == stored)

        // The end of a run folds the log in and truncates it, though the reader keeps the archive open.
        try await archive.settleAfterBulkChange()
        #expect(try Self.fileSize(path + "-wal") == 0)
        try archive.close()
        try reader.close()
    }

    /// The frames the log holds now: `mxFrame` of the WAL index header that begins `-shm`, a 32-bit integer in
    /// the machine's byte order at byte 16. (The log file's size is no measure: SQLite writes it again from its
    /// start after a fold, and the file keeps its largest size.)
    private static func logFrames(_ path: String) throws -> Int {
        guard let handle = FileHandle(forReadingAtPath: path + "-shm") else { return 0 }
        defer { try? handle.close() }
        let header = try handle.read(upToCount: 20) ?? Data()
        guard header.count == 20 else { return 0 }
        return Int(header.subdata(in: 16..<20).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) })
    }

    private static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
