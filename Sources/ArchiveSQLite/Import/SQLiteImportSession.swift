import Archive
import GRDB
import Synchronization

/// A restore's batches held in one write transaction until they make ``recordsPerTransaction`` records
/// (``SQLiteArchive/importing(_:)``).
///
/// Committed one by one, batches of 1,000 messages from a bundle's dialogs each rewrote the leaves of the indexes
/// on `messages` that they touched — the messages of a dialog spread over every date and sender, so nearly every
/// leaf of those indexes — into the write-ahead log, and cut the word index into a segment each for FTS5 to merge
/// again and again. Held together, the pages a transaction changes reach the log once, and both full-text
/// indexes get the transaction's messages in one ordered run at its commit
/// (``SQLiteArchive/indexImportedTexts(after:db:)``).
///
/// A batch that fails undoes the transaction it is in, the batches since the last commit with it, as a killed
/// process would: a savepoint per batch, to undo that batch alone, cost what the grouping saved (SQLite copies
/// the pages a savepoint changes into its statement journal first). The transaction stays open between two
/// batches, which GRDB allows only on an archive configured for it (`allowsUnsafeTransactions`,
/// ``SQLiteArchive/makeConfiguration(readOnly:checkpoints:)``); ``finish()`` (or ``finishNow()``) closes it, and
/// ``SQLiteArchive/importing(recordsPerTransaction:_:)`` always calls it.
final class SQLiteImportSession: ImportSession {
    private let pool: DatabasePool
    /// How many records make a transaction.
    let recordsPerTransaction: Int
    /// The open transaction: the largest message rowid before it began, and the records stored in it.
    private let open = Mutex<(after: Int64, records: Int)?>(nil)

    init(pool: DatabasePool, recordsPerTransaction: Int) {
        self.pool = pool
        self.recordsPerTransaction = recordsPerTransaction
    }

    func store(_ batch: ImportBatch) async throws -> ImportOutcome {
        try await pool.writeWithoutTransaction { db in
            if !db.isInsideTransaction {
                try db.beginTransaction(.immediate)
                let after = try Int64.fetchOne(db, sql: "SELECT max(rowid) FROM messages") ?? 0
                open.withLock { $0 = (after, 0) }
            }
            let outcome: ImportOutcome
            do {
                outcome = try SQLiteArchive.storeImported(batch, db: db)
            } catch {
                try? db.rollback()
                open.withLock { $0 = nil }
                throw error
            }
            let records = open.withLock { state -> Int in
                state?.records += batch.count
                return state?.records ?? 0
            }
            if records >= recordsPerTransaction { try commit(db) }
            return outcome
        }
    }

    /// Indexes and commits what the open transaction holds, if any: at the end of a restore, when no batch is being
    /// stored.
    func finish() async throws {
        try await pool.writeWithoutTransaction { db in try commit(db) }
    }

    /// ``finish()`` waiting on this thread: GRDB's asynchronous accesses refuse to start once their task is
    /// cancelled, and a restore that fails or is cancelled must not leave its transaction open.
    func finishNow() throws {
        try pool.writeWithoutTransaction { db in try commit(db) }
    }

    /// Fills the full-text indexes for the transaction's new messages and commits; rolls back when either fails.
    private func commit(_ db: Database) throws {
        guard
            let after = open.withLock({ state in
                defer { state = nil }
                return state?.after
            })
        else { return }
        // SQLite rolls a transaction back itself on some errors (a full disk, an interrupt).
        guard db.isInsideTransaction else { return }
        do {
            try SQLiteArchive.indexImportedTexts(after: after, db: db)
            try db.commit()
        } catch {
            try? db.rollback()
            throw error
        }
    }
}
