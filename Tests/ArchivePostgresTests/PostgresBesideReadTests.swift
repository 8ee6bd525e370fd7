import Archive
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import PostgresNIO
import QuickBlox
import Synchronization
import Testing

@testable import ArchivePostgres

/// A read in two parts on PostgreSQL (``SQLDatabase/read(_:beside:)``, a search's total beside its page): on two
/// connections when the pool has a second, on one otherwise, and in both cases one state of the archive.
@Suite(.postgres, .sharedCluster)
struct PostgresBesideReadTests {
    typealias Fixture = ArchiveFixture

    /// A message stored by another connection after the read began — before either part ran a statement — is in
    /// neither part: the second connection's transaction imports the first's snapshot (its own would be taken at
    /// its first statement, after the store). With a pool of one connection the second part runs after the first,
    /// on the same connection. A read after sees the message.
    @Test(arguments: [nil, 1] as [Int?])
    func bothPartsSeeTheArchiveAsTheReadBegan(maximumConnections: Int?) async throws {
        let location = try await SharedCluster.database()
        let archive = try await PostgresArchive.open(
            location, maximumConnections: maximumConnections, now: Fixture.baseTime)
        let other = try await PostgresArchive.open(location, now: Fixture.baseTime)
        defer {
            Task {
                await archive.close()
                await other.close()
            }
        }
        let dialog = Fixture.dialog(Fixture.dialogID)
        _ = try await other.storeDialogs([(dialog, dialog.json)], observedAt: Fixture.baseTime)
        try await store(other, (1...3).map { Fixture.message($0, text: "before", offset: $0) })

        let begun = Mutex(0)
        let release = DispatchSemaphore(value: 0)
        let part: @Sendable (any SQLConnection) throws -> (backend: Int?, messages: Int?) = { connection in
            begun.withLock { $0 += 1 }
            release.wait()
            return (
                try connection.fetchInt("SELECT pg_backend_pid()"),
                try connection.fetchInt("SELECT COUNT(*) FROM messages")
            )
        }
        let read = Task { try await archive.sql.read(part, beside: part) }
        // Two connections: both parts begin before either ends. One: the second begins when the first ends.
        let concurrent = maximumConnections == nil
        let deadline = ContinuousClock.now + .seconds(30)
        while begun.withLock({ $0 }) < (concurrent ? 2 : 1) {
            guard ContinuousClock.now < deadline else {
                release.signal()
                release.signal()
                Issue.record("the parts did not begin: \(begun.withLock { $0 }) of \(concurrent ? 2 : 1)")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        try await store(other, [Fixture.message(4, text: "during", offset: 4)])
        release.signal()
        release.signal()
        let (first, second) = try await read.value

        #expect(first.messages == 3)
        #expect(second.messages == 3)
        if concurrent {
            #expect(first.backend != second.backend, "the second part ran on the first part's connection")
        } else {
            #expect(first.backend == second.backend)
        }
        #expect(try await archive.sql.read { try $0.fetchInt("SELECT COUNT(*) FROM messages") } == 4)
    }

    /// A failing part fails the read, whichever it is, and leaves no connection in a transaction: the next read
    /// runs.
    @Test(arguments: [true, false])
    func aFailingPartFailsTheRead(firstFails: Bool) async throws {
        let location = try await SharedCluster.database()
        let archive = try await PostgresArchive.open(location, now: Fixture.baseTime)
        defer { Task { await archive.close() } }
        let fails: @Sendable (any SQLConnection) throws -> Int? = { try $0.fetchInt("SELECT 1 / 0") }
        let runs: @Sendable (any SQLConnection) throws -> Int? = { try $0.fetchInt("SELECT 1") }
        await #expect(throws: PostgresServerError.self) {
            _ = try await archive.sql.read(firstFails ? fails : runs, beside: firstFails ? runs : fails)
        }
        for _ in 0..<3 {
            let (a, b) = try await archive.sql.read(runs, beside: runs)
            #expect(a == 1 && b == 1)
        }
    }

    private func store(_ archive: PostgresArchive, _ messages: [Message]) async throws {
        _ = try await archive.storeMessages(
            dialogID: Fixture.dialogID, rawItems: messages.map(\.json), cursor: CrawlCursor().advanced(over: messages),
            at: Fixture.baseTime)
    }
}

/// The snapshot identifier written into `SET TRANSACTION SNAPSHOT` (a literal: the statement takes no parameter)
/// is the server's form or nothing.
@Suite struct ExportedSnapshotTests {
    @Test(arguments: ["00000003-0000001B-1", "0000000A-000001F2-12", "abcdef-0"])
    func theServersIdentifiersAreTaken(id: String) throws {
        let snapshot = try #require(ExportedSnapshot(id: id))
        #expect(snapshot.importStatement.sql == "SET TRANSACTION SNAPSHOT '\(id)'")
    }

    @Test(arguments: ["", "00000003-0000001B-1'; SELECT 1; --", "0000 0003", "00000003\n", "ÄBC", "1e5+2", "０００３-１"])
    func anythingElseIsRefused(id: String) {
        #expect(ExportedSnapshot(id: id) == nil)
    }
}
