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

    /// Pages stored until the archive file is four times the policy's maximum: after every commit the log holds
    /// no more than the threshold for the archive's size (plus the one transaction that crossed it), grows to the
    /// maximum once the archive has, never much past it, and every message is in the archive.
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

        // The policy runs after a commit, so the log may pass the threshold by one transaction: a page of 100
        // messages adds 40–80 pages to the log here, up to about 220 when its commit merges full-text segments.
        let slack = 300
        var largestLog = 0
        var stored = 0
        var archivePages = 0
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
            let logPages = try Self.logPages(path + "-wal")
            #expect(
                logPages <= min(max(archivePages, policy.minimumPages), policy.maximumPages) + slack,
                "after \(stored) messages the log holds \(logPages) pages, the archive file \(archivePages)")
            archivePages = try Self.fileSize(path) / 4096
            largestLog = max(largestLog, logPages)
        }
        #expect(largestLog <= policy.maximumPages + slack)
        // Held to the minimum (SQLite's automatic checkpoints at a fixed size), it would stay near 128 + 220 pages.
        #expect(largestLog >= policy.maximumPages, "the log never grew with the archive: \(largestLog) pages")
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

    /// Frames the log file holds (its size only grows until SQLite removes it): 32 bytes of header, then frames
    /// of a 24-byte header and a page.
    private static func logPages(_ path: String) throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        return max(0, try fileSize(path) - 32) / (4096 + 24)
    }

    private static func fileSize(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
