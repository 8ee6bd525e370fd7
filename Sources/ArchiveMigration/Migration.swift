import Archive
import Foundation
import Synchronization

/// Moves an archive to another (SQLite to PostgreSQL or back) whole, resumably: `qbarchive migrate`.
///
/// The destination takes the source's identity (archive id, creation time), so the two export the same bytes.
/// Users, dialogs, membership, messages (with their hides, tombstones and deletion evidence) and revisions move as
/// records through ``ArchiveWriter/importRecords(_:)`` — each stored as a crawl would have stored it, with both
/// backends' indexes — read from one snapshot of the source in batches; the archive's own tables (the file
/// list, dialog hides, crawl state, runs, the audit chain, holds, the erasure register) and the marks an import
/// does not carry (a dialog's hides and deletion evidence, erasure times) are copied row by row with their
/// keys (``VerbatimTable``); the stored attachment files are copied from the source's file store to the
/// destination's and checked against their SHA-256.
///
/// Every write keeps what the destination has, so a migration cut short and run again finishes without
/// duplicating anything; a part whose count already equals the source's is skipped.
public struct Migration: Sendable {
    public let source: any ArchiveReader & VerbatimTableAccess
    public let destination: any ArchiveWriter & VerbatimTableAccess
    /// Records (or rows) per batch: each batch is one transaction of the destination.
    public var batchSize = 1_000
    /// Stops with ``MigrationError/stoppedEarly(batches:)`` after this many batches (tests of resumption).
    public var stopAfterBatches: Int?
    /// Called as parts progress (from the migration's task).
    public var progress: @Sendable (MigrationEvent) -> Void = { _ in }

    public init(source: any ArchiveReader & VerbatimTableAccess, destination: any ArchiveWriter & VerbatimTableAccess) {
        self.source = source
        self.destination = destination
    }

    /// What a migration did and found.
    public struct Report: Sendable {
        /// Whether the destination was new (it took the source's identity) rather than resumed.
        public var adopted: Bool
        /// Records and rows the destination did not have.
        public var written: Int
        /// Files copied into the destination's store.
        public var filesCopied: Int
        public var figures: [MigrationFigure]
    }

    /// Copies everything, then verifies (``verify()``).
    ///
    /// - Throws: ``MigrationError/differentArchive(destination:destinationID:sourceID:)`` before writing anything
    ///   when the destination holds another archive; ``MigrationError/mismatch(parts:)`` when the copy reads back
    ///   different (with the figures in ``MigrationError``'s text).
    public func run() async throws -> Report {
        let adopted = try await takeIdentity()
        let budget = BatchBudget(limit: stopAfterBatches)
        var written = 0
        for table in VerbatimTable.beforeRecords { written += try await copy(table, budget: budget) }
        written += try await copyRecords(budget: budget)
        for table in VerbatimTable.afterRecords { written += try await copy(table, budget: budget) }
        let files = try await copyFiles()
        try await destination.settleAfterBulkChange()
        let figures = try await verify()
        return Report(adopted: adopted, written: written, filesCopied: files, figures: figures)
    }

    /// Gives an empty destination the source's identity; `false` when it has it already (a resumed migration).
    private func takeIdentity() async throws -> Bool {
        let wanted = try await source.identity()
        let present = try await destination.identity()
        if wanted.id == present.id { return false }
        let counts = try await destination.counts()
        guard counts.messages == 0, counts.dialogs == 0 else {
            throw MigrationError.differentArchive(
                destination: destination.location, destinationID: present.id.uuidString.lowercased(),
                sourceID: wanted.id.uuidString.lowercased())
        }
        try await destination.adoptIdentity(wanted)
        return true
    }

    /// Copies one ``VerbatimTable`` in key order, a batch per transaction; skipped when the destination has as
    /// many rows as the source (an `insert` table).
    private func copy(_ table: VerbatimTable, budget: BatchBudget) async throws -> Int {
        let total = try await source.verbatimCount(table)
        if table.kind == .insert, try await destination.verbatimCount(table) == total {
            progress(MigrationEvent(step: .skipped, part: table.rawValue, done: total, total: total))
            return 0
        }
        var after: [TableCell]?
        var done = 0
        var written = 0
        while true {
            let rows = try await source.verbatimRows(table, after: after, limit: batchSize)
            guard !rows.isEmpty else { break }
            try budget.spend()
            written += try await destination.writeVerbatim(table, rows: rows)
            done += rows.count
            progress(MigrationEvent(step: .copying, part: table.rawValue, done: done, total: total))
            guard rows.count == batchSize, let last = rows.last else { break }
            after = Array(last.prefix(table.key.count))
        }
        return written
    }

    /// Users, dialogs, membership, messages and revisions from one snapshot of the source.
    private func copyRecords(budget: BatchBudget) async throws -> Int {
        let have = try await destination.counts()
        let want = try await source.counts()
        let destination = destination
        let progress = progress
        return try await source.withSnapshot { snapshot in
            var written = 0
            func send(_ batch: ImportBatch, part: String, done: Int, total: Int) async throws {
                try budget.spend()
                written += try await destination.importRecords(batch).inserted
                progress(MigrationEvent(step: .copying, part: part, done: done, total: total))
            }
            if have.users == want.users {
                progress(MigrationEvent(step: .skipped, part: "users", done: want.users, total: want.users))
            } else {
                var done = 0
                for try await users in snapshot.users(ids: nil) {
                    var batch = ImportBatch()
                    batch.users = users
                    done += users.count
                    try await send(batch, part: "users", done: done, total: want.users)
                }
            }
            if have.dialogs == want.dialogs {
                progress(MigrationEvent(step: .skipped, part: "dialogs", done: want.dialogs, total: want.dialogs))
            } else {
                var done = 0
                for try await dialogs in snapshot.dialogs(ids: nil) {
                    var batch = ImportBatch()
                    batch.dialogs = dialogs
                    done += dialogs.count
                    try await send(batch, part: "dialogs", done: done, total: want.dialogs)
                }
            }
            // Membership periods have no count of their own to compare: they are sent again (kept once).
            var periods = 0
            for try await membership in snapshot.memberships(dialogIDs: nil) {
                var batch = ImportBatch()
                batch.membership = membership
                periods += membership.count
                try await send(batch, part: "dialog_membership", done: periods, total: periods)
            }
            if have.messages == want.messages {
                progress(MigrationEvent(step: .skipped, part: "messages", done: want.messages, total: want.messages))
            } else {
                var done = 0
                for try await hits in snapshot.messages(matching: nil) {
                    // The snapshot's batches are its own size; each transaction holds `batchSize` records.
                    for chunk in hits.items.chunks(of: batchSize) {
                        var batch = ImportBatch()
                        batch.messages = try chunk.map { try ImportedMessage($0.message) }
                        done += chunk.count
                        try await send(batch, part: "messages", done: done, total: want.messages)
                    }
                }
            }
            if have.revisions == want.revisions {
                progress(
                    MigrationEvent(
                        step: .skipped, part: "message_revisions", done: want.revisions, total: want.revisions))
            } else {
                var done = 0
                for try await revisions in snapshot.revisions(matching: nil) {
                    var batch = ImportBatch()
                    batch.revisions = revisions.items
                    done += revisions.items.count
                    try await send(batch, part: "message_revisions", done: done, total: want.revisions)
                }
            }
            return written
        }
    }

    /// Copies the stored files the destination's store lacks, checking each against its SHA-256.
    private func copyFiles() async throws -> Int {
        let files = try await source.storedFiles()
        let from = source.fileStore
        let into = destination.fileStore
        var copied = 0
        for (index, file) in files.enumerated() where !into.contains(file.sha256) {
            guard from.contains(file.sha256) else {
                throw MigrationError.sourceFileUnreadable(sha256: file.sha256, reason: "it is not in \(from.root)")
            }
            let stored: (sha256: String, size: Int)
            do {
                stored = try into.store(copying: from.path(for: file.sha256))
            } catch {
                throw MigrationError.sourceFileUnreadable(sha256: file.sha256, reason: error.localizedDescription)
            }
            guard stored.sha256 == file.sha256 else {
                throw MigrationError.sourceFileUnreadable(
                    sha256: file.sha256, reason: "its content hashes to \(stored.sha256) (the file is corrupt)")
            }
            copied += 1
            if copied % 100 == 0 || index == files.count - 1 {
                progress(MigrationEvent(step: .copying, part: "files", done: index + 1, total: files.count))
            }
        }
        return copied
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`.
    fileprivate func chunks(of size: Int) -> [ArraySlice<Element>] {
        let step = Swift.max(1, size)
        return stride(from: 0, to: count, by: step).map { self[$0..<Swift.min($0 + step, count)] }
    }
}

/// Counts the batches a migration writes and stops it after the limit (``Migration/stopAfterBatches``).
final class BatchBudget: Sendable {
    private let limit: Int?
    private let spent = Mutex(0)

    init(limit: Int?) { self.limit = limit }

    func spend() throws {
        guard let limit else { return }
        let count = spent.withLock { value -> Int in
            value += 1
            return value
        }
        if count > limit { throw MigrationError.stoppedEarly(batches: limit) }
    }
}
