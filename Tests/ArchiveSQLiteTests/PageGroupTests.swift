import ArchiveSQL
import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Synchronization
import Testing

@testable import ArchiveSQLite

/// Crawled pages that wait for the archive's writer are committed together (``GroupCommit``), and the archive they
/// leave is the one the same pages written one after another leave.
@Suite("Pages committed together")
struct PageGroupTests {
    typealias F = ArchiveFixture

    /// Counts the archive's commits and rollbacks.
    final class Transactions: TransactionObserver, Sendable {
        private let counts = Mutex((commits: 0, rollbacks: 0))
        var commits: Int { counts.withLock { $0.commits } }
        var rollbacks: Int { counts.withLock { $0.rollbacks } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { counts.withLock { $0.commits += 1 } }
        func databaseDidRollback(_ db: Database) { counts.withLock { $0.rollbacks += 1 } }
    }

    static let dialogs = (0..<24).map { F.objectID(0xE00 + $0) }

    /// A page of four messages of the `index`th dialog, in two scripts.
    static func page(_ index: Int, dialogID: String? = nil) -> [Message] {
        (0..<4).map { number in
            F.message(
                index * 100 + number, text: number.isMultiple(of: 2) ? "Seite \(index) 会议 \(number)" : nil,
                offset: index * 60 + number, dialogID: dialogID ?? dialogs[index])
        }
    }

    /// An archive holding ``dialogs`` (and the fixture's two).
    static func fixture() async throws -> ArchiveFixture {
        let fixture = try await ArchiveFixture()
        try await fixture.archive.storeDialogs(rawItems: dialogs.map { F.dialog($0).json }, at: F.baseTime)
        return fixture
    }

    /// Writes a first page of the fixture's own dialog while the archive's writer is held, then every page of
    /// `pages` one after another, so that they all wait for the first and go together in that order; returns each
    /// page's counts or error, by its dialog.
    static func writeTogether(_ pages: [(String, [Message])], into fixture: ArchiveFixture) async throws
        -> [String: Result<PageCounts, any Error>]
    {
        Dictionary(
            try await writeInOrder(pages, into: fixture).enumerated().map { (pages[$0.offset].0, $0.element) },
            uniquingKeysWith: { first, _ in first })
    }

    /// ``writeTogether(_:into:)``'s results in the order of `pages`.
    static func writeInOrder(_ pages: [(String, [Message])], into fixture: ArchiveFixture) async throws
        -> [Result<PageCounts, any Error>]
    {
        let archive = fixture.sqlite
        let held = Mutex(false)
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await archive.pool.writeWithoutTransaction { _ in
                held.withLock { $0 = true }
                release.wait()
            }
        }
        try await waitUntil { held.withLock { $0 } }
        let first = Task { try await fixture.write([F.message(99_999, text: "zuerst")]) }
        try await waitUntil { archive.pages.isBusy }
        return try await withThrowingTaskGroup(of: (Int, Result<PageCounts, any Error>).self) { group in
            for (index, (dialogID, messages)) in pages.enumerated() {
                group.addTask {
                    do {
                        return (index, .success(try await fixture.write(messages, dialogID: dialogID)))
                    } catch {
                        return (index, .failure(error))
                    }
                }
                try await waitUntil { archive.pages.waitingCount == index + 1 }
            }
            release.signal()
            try await holder.value
            #expect(try await first.value == PageCounts(new: 1))
            var results: [Int: Result<PageCounts, any Error>] = [:]
            for try await (index, result) in group { results[index] = result }
            return pages.indices.map { results[$0]! }
        }
    }

    static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !condition() {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// What an archive holds of each dialog: its messages (id, text, sender, first sighting) and its cursor.
    static func contents(_ fixture: ArchiveFixture, dialogs: [String]) async throws -> [String] {
        var lines: [String] = []
        for dialog in dialogs {
            for message in try await fixture.archive.messages(dialogID: dialog) {
                lines.append(
                    "\(dialog) \(message.id) \(message.text ?? "-") \(message.senderID) \(message.firstSeenAt)")
            }
            lines.append(
                "\(dialog) cursor \(String(describing: try await fixture.archive.crawlState(dialogID: dialog)))")
        }
        return lines
    }

    @Test func pagesThatWaitAreCommittedInOneTransactionAndLeaveTheSameArchive() async throws {
        let pages = Self.dialogs.indices.map { (Self.dialogs[$0], Self.page($0)) }
        let together = try await Self.fixture()
        let transactions = Transactions()
        together.sqlite.pool.add(transactionObserver: transactions, extent: .observerLifetime)
        let results = try await Self.writeTogether(pages, into: together)

        for (dialogID, _) in pages { #expect(try results[dialogID]?.get() == PageCounts(new: 4)) }
        // The first page alone, the 24 that waited in one transaction.
        #expect(transactions.commits == 2)
        #expect(transactions.rollbacks == 0)

        let alone = try await Self.fixture()
        for (dialogID, messages) in pages { try await alone.write(messages, dialogID: dialogID) }
        let expected = try await Self.contents(alone, dialogs: Self.dialogs)
        #expect(try await Self.contents(together, dialogs: Self.dialogs) == expected)
        #expect(expected.count == 24 * 5)
        #expect(try await together.find("会议").count == 48)
        #expect(try await together.find("seite").count == 48)
        try await expectIndexesConsistent(together.sqlite)
    }

    /// The leaves FTS5 has written to the first level of an index (the write counter of its structure record: a
    /// 4-byte cookie, then varints for the levels, the segments and this counter).
    static func leavesWritten(_ index: String, _ fixture: ArchiveFixture) async throws -> UInt64 {
        let block = try await fixture.sqlite.pool.read { db in
            try Data.fetchOne(db, sql: "SELECT block FROM \(index)_data WHERE id = 10")
        }
        let bytes = [UInt8](try #require(block))
        var offset = 4
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            for _ in 0..<8 {
                guard offset < bytes.count else { throw CancellationError() }
                let byte = bytes[offset]
                offset += 1
                value = value << 7 | UInt64(byte & 0x7F)
                if byte < 0x80 { return value }
            }
            guard offset < bytes.count else { throw CancellationError() }
            offset += 1
            return value << 8 | UInt64(bytes[offset - 1])
        }
        _ = try varint()  // levels
        _ = try varint()  // segments
        return try varint()
    }

    @Test func thePagesOfOneTransactionAreWrittenToEachFullTextIndexOnce() async throws {
        // FTS5 writes what it holds for a transaction at its commit, and at every statement savepoint once the index
        // is part of the transaction: the pages' cursors, saved after each page's messages, cut a segment per page.
        let pages = Self.dialogs.indices.map { (Self.dialogs[$0], Self.page($0)) }
        let fixture = try await Self.fixture()
        _ = try await Self.writeTogether(pages, into: fixture)
        // The first page's transaction, then the 24 pages' (each page's texts are a few dozen bytes: one leaf).
        let substrings = try await Self.leavesWritten("message_trigrams", fixture)
        let words = try await Self.leavesWritten("message_words", fixture)
        #expect(substrings == 2)
        #expect(words == 2)
        #expect(try await fixture.find("会议").count == 48)
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test(arguments: [0, 1, 11, 23])
    func aPageTheArchiveRefusesFailsAloneAndTheOthersAreStored(refused: Int) async throws {
        // The refused page's dialog is not in the archive: its cursor cannot be stored (a constraint).
        let unknown = F.objectID(0xBAD)
        var pages = Self.dialogs.indices.map { (Self.dialogs[$0], Self.page($0)) }
        pages[refused] = (unknown, Self.page(refused, dialogID: unknown))
        let fixture = try await Self.fixture()
        let transactions = Transactions()
        fixture.sqlite.pool.add(transactionObserver: transactions, extent: .observerLifetime)
        let results = try await Self.writeTogether(pages, into: fixture)

        #expect(throws: DatabaseError.self) { try results[unknown]?.get() }
        let stored = pages.map(\.0).filter { $0 != unknown }
        for dialogID in stored { #expect(try results[dialogID]?.get() == PageCounts(new: 4)) }
        #expect(try await fixture.archive.counts().messages == 1 + 23 * 4)
        #expect(try await fixture.archive.messages(dialogID: unknown).isEmpty)
        #expect(try await fixture.archive.crawlState(dialogID: unknown) == nil)
        // The first page; the 24 refused as a group (rolled back), then every page alone: the refused one rolled
        // back again.
        #expect(transactions.commits == 1 + 23)
        #expect(transactions.rollbacks == 2)

        let alone = try await Self.fixture()
        for (dialogID, messages) in pages where dialogID != unknown {
            try await alone.write(messages, dialogID: dialogID)
        }
        #expect(try await Self.contents(fixture, dialogs: stored) == Self.contents(alone, dialogs: stored))
        try await expectIndexesConsistent(fixture.sqlite)
    }

    @Test func aMessageStoredAndEditedInOneTransactionIsIndexedOnce() async throws {
        // One dialog's pages in one transaction (pages of a dialog's parts, or of its updated_at pass): a message
        // inserted by the first, its text edited by the second, the date of another moved by the third.
        let dialog = Self.dialogs[0]
        let first = [
            F.message(1, text: "Altes Treffen 旧会议", offset: 10, dialogID: dialog),
            F.message(2, text: "Termin verschoben", offset: 20, dialogID: dialog),
        ]
        let edited = [F.message(1, text: "Neues Treffen 新会议", offset: 10, dialogID: dialog, updatedAt: F.baseTime + 99)]
        var moved = F.message(2, text: "Termin verschoben", offset: 20, dialogID: dialog, updatedAt: F.baseTime + 98)
        moved.dateSent = F.baseTime + 5_000
        let fixture = try await Self.fixture()
        let results = try await Self.writeInOrder(
            [(dialog, first), (dialog, edited), (dialog, [moved])], into: fixture)
        #expect(
            try results.map { try $0.get() } == [PageCounts(new: 2), PageCounts(edited: 1), PageCounts(unchanged: 1)])
        #expect(try await fixture.find("neues") == [F.objectID(1)])
        #expect(try await fixture.find("新会议") == [F.objectID(1)])
        #expect(try await fixture.find("altes").isEmpty)
        #expect(try await fixture.find("旧会议").isEmpty)
        #expect(try await fixture.find("verschoben") == [F.objectID(2)])
        // The word index's entry under the message's new second.
        let keys = try await fixture.sqlite.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM message_words('verschoben')")
        }
        let rowID = try await fixture.sqlite.pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT rowid FROM messages WHERE id = ?", arguments: [F.objectID(2)])
        }
        #expect(keys == [DateKey.of(dateSent: F.baseTime + 5_000, rowID: try #require(rowID))])
        try await expectIndexesConsistent(fixture.sqlite)
    }
}
