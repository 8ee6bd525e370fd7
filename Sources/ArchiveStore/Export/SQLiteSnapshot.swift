import Foundation
import GRDB
import QueryLanguage

/// The SQLite archive's ``ArchiveSnapshot``: a connection of its own holding one read transaction (GRDB's
/// `DatabaseSnapshot`), so every stream and look-up sees the same archive while crawls commit.
///
/// Each stream steps one cursor on that connection and hands batches of ``batchSize`` records to the
/// async consumer through a ``BlockingChannel``; the files a batch's attachments name are looked up on the
/// same connection between cursor steps, so a batch arrives with them.
final class SQLiteSnapshot: ArchiveSnapshot, @unchecked Sendable {
    static let batchSize = 1000

    private let snapshot: DatabaseSnapshot
    private let lock = NSLock()
    private var channels: [@Sendable () -> Void] = []
    private var producers: [Task<Void, Never>] = []

    init(_ snapshot: DatabaseSnapshot) {
        self.snapshot = snapshot
    }

    func identity() async throws -> ArchiveIdentity {
        try await snapshot.read { db in try SnapshotReads(db: db).identity() }
    }

    func messages(matching query: Query?) -> AsyncThrowingStream<ExportBatch<SearchHit>, any Error> {
        stream { reads, emit in
            try reads.forEachMessage(matching: query) { try emit($0, $0.message.attachmentsJSON) }
        }
    }

    func revisions(matching query: Query?) -> AsyncThrowingStream<ExportBatch<MessageRevision>, any Error> {
        stream { reads, emit in
            try reads.forEachRevision(matching: query) { try emit($0, $0.attachmentsJSON) }
        }
    }

    func dialogs(ids: [String]?) -> AsyncThrowingStream<[ArchivedDialog], any Error> {
        plain { reads, emit in try reads.forEachDialog(ids: ids, emit) }
    }

    func users(ids: [Int]?) -> AsyncThrowingStream<[ArchivedUser], any Error> {
        plain { reads, emit in try reads.forEachUser(ids: ids, emit) }
    }

    func memberships(dialogIDs: [String]?) -> AsyncThrowingStream<[MembershipPeriod], any Error> {
        plain { reads, emit in try reads.forEachMembership(dialogIDs: dialogIDs, emit) }
    }

    /// Ends every stream still running (its producer's next send throws) and waits for the producers.
    func close() async {
        let (cancels, tasks) = lock.withLock { (channels, producers) }
        for cancel in cancels { cancel() }
        for task in tasks { await task.value }
    }

    /// A stream of batches with their files: `body` calls `emit(item, attachmentsJSON)` for each record.
    private func stream<Item: Sendable>(
        _ body: @escaping @Sendable (SnapshotReads, (Item, String) throws -> Void) throws -> Void
    ) -> AsyncThrowingStream<ExportBatch<Item>, any Error> {
        let channel = BlockingChannel<ExportBatch<Item>>()
        start(channel) { db in
            let reads = SnapshotReads(db: db)
            var batch = ExportBatch<Item>(items: [])
            var keys: [String] = []
            func flush() throws {
                batch.files = keys.isEmpty ? [:] : try reads.files(keys: Set(keys))
                try channel.send(batch)
                batch = ExportBatch(items: [])
                keys.removeAll(keepingCapacity: true)
            }
            try body(reads) { item, attachments in
                batch.items.append(item)
                if attachments != "[]" { keys += AttachmentKey.keys(ofAttachmentsJSON: attachments) }
                if batch.items.count >= Self.batchSize { try flush() }
            }
            if !batch.items.isEmpty { try flush() }
        }
        return channel.stream
    }

    /// A stream of batches of records that name no files.
    private func plain<Item: Sendable>(
        _ body: @escaping @Sendable (SnapshotReads, (Item) throws -> Void) throws -> Void
    ) -> AsyncThrowingStream<[Item], any Error> {
        let channel = BlockingChannel<[Item]>()
        start(channel) { db in
            var batch: [Item] = []
            try body(SnapshotReads(db: db)) { item in
                batch.append(item)
                if batch.count >= Self.batchSize {
                    try channel.send(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try channel.send(batch) }
        }
        return channel.stream
    }

    /// Runs `produce` on the snapshot's connection, ending `channel` with its outcome.
    private func start<Element>(
        _ channel: BlockingChannel<Element>, _ produce: @escaping @Sendable (Database) throws -> Void
    ) {
        let snapshot = snapshot
        let task = Task {
            do {
                try await snapshot.read { db in try produce(db) }
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        lock.withLock {
            channels.append { channel.cancel() }
            producers.append(task)
        }
    }
}

extension SQLiteArchive {
    /// Runs `body` with a snapshot: a connection of its own in one read transaction for as long as `body`
    /// runs, so every stream of an export sees the same archive whatever crawls commit meanwhile.
    public func withSnapshot<T: Sendable>(_ body: @Sendable (any ArchiveSnapshot) async throws -> T) async throws -> T {
        let snapshot = SQLiteSnapshot(try pool.makeSnapshot())
        do {
            let result = try await body(snapshot)
            await snapshot.close()
            return result
        } catch {
            await snapshot.close()
            throw error
        }
    }
}
