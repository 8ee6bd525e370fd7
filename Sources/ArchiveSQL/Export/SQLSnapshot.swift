import Archive
import Foundation
import QueryLanguage

/// An ``ArchiveSnapshot`` over any SQL backend's consistent view.
///
/// Each stream steps one cursor on the view's connection and hands batches of ``batchSize`` records to
/// the async consumer through a ``BlockingChannel``; the files a batch's attachments name are looked up
/// on the same connection between cursor steps, so a batch arrives with them.
final class SQLSnapshot: ArchiveSnapshot, @unchecked Sendable {
    static let batchSize = 1000

    private let database: any SQLSnapshotDatabase
    private let location: String
    private let lock = NSLock()
    private var cancels: [@Sendable () -> Void] = []
    private var producers: [Task<Void, Never>] = []

    init(_ database: any SQLSnapshotDatabase, location: String) {
        self.database = database
        self.location = location
    }

    func identity() async throws -> ArchiveIdentity {
        let location = location
        return try await database.read { connection in
            guard
                let (text, createdAt) = try connection.fetchOne(
                    "SELECT archive_id, created_at FROM archive_meta WHERE id = 1", { ($0[0] as String, $0[1] as Int) }),
                let id = UUID(uuidString: text)
            else { throw ArchiveError.notAnArchive(path: location, reason: "archive_meta has no identity row") }
            return ArchiveIdentity(id: id, createdAt: createdAt)
        }
    }

    func messages(matching query: Query?, raw: Bool) -> AsyncThrowingStream<ExportBatch<SearchHit>, any Error> {
        stream { reads, emit in
            try reads.forEachMessage(matching: query, raw: raw) { try emit($0, $0.message.attachmentsJSON) }
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
        let (cancels, tasks) = lock.withLock { (self.cancels, producers) }
        for cancel in cancels { cancel() }
        for task in tasks { await task.value }
    }

    /// A stream of batches with their files: `body` calls `emit(item, attachmentsJSON)` for each record.
    private func stream<Item: Sendable>(
        _ body: @escaping @Sendable (SnapshotReads, (Item, String) throws -> Void) throws -> Void
    ) -> AsyncThrowingStream<ExportBatch<Item>, any Error> {
        let channel = BlockingChannel<ExportBatch<Item>>()
        start(channel) { connection in
            let reads = SnapshotReads(connection: connection)
            var batch = ExportBatch<Item>(items: [], attachmentKeys: [])
            var keys: Set<String> = []
            func flush() throws {
                batch.files = try reads.files(keys: keys)
                try channel.send(batch)
                batch = ExportBatch(items: [], attachmentKeys: [])
                keys.removeAll(keepingCapacity: true)
            }
            try body(reads) { item, attachments in
                let itemKeys = AttachmentKey.keys(ofAttachmentsJSON: attachments)
                batch.items.append(item)
                batch.attachmentKeys.append(itemKeys)
                keys.formUnion(itemKeys)
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
        start(channel) { connection in
            var batch: [Item] = []
            try body(SnapshotReads(connection: connection)) { item in
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

    /// Runs `produce` on the view's connection, ending `channel` with its outcome.
    private func start<Element>(
        _ channel: BlockingChannel<Element>, _ produce: @escaping @Sendable (any SQLConnection) throws -> Void
    ) {
        let database = database
        let task = Task {
            do {
                try await database.read { connection in try produce(connection) }
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        lock.withLock {
            cancels.append { channel.cancel() }
            producers.append(task)
        }
    }
}

extension SQLArchiveReading {
    public func withSnapshot<T: Sendable>(_ body: @Sendable (any ArchiveSnapshot) async throws -> T) async throws -> T {
        let location = location
        return try await sql.withSnapshot { database in
            let snapshot = SQLSnapshot(database, location: location)
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
}
