import Archive
import Crypto
import Export
import Foundation

extension Migration {
    /// Reads source and destination back and compares each part's count and content hash: users, dialogs,
    /// membership and revisions as the archive reads them, messages as their JSON Lines export with raw records
    /// (what `qbarchive export --format jsonl --raw` writes, with each attachment's file record), every
    /// ``VerbatimTable`` row by row, and the stored files' hashes.
    ///
    /// - Returns: the figures, one per part.
    /// - Throws: ``MigrationError/mismatch(parts:)`` naming the parts that differ.
    public func verify() async throws -> [MigrationFigure] {
        let progress = progress
        progress(MigrationEvent(step: .verifying, part: "records", done: 0, total: 2))
        let sourceRecords = try await Self.recordDigests(source)
        let destinationRecords = try await Self.recordDigests(destination)
        var figures: [MigrationFigure] = []
        for part in ["users", "dialogs", "dialog_membership", "message_revisions"] {
            let a = sourceRecords[part] ?? Sealed(count: 0, hex: Digest().hex)
            let b = destinationRecords[part] ?? Sealed(count: 0, hex: Digest().hex)
            figures.append(
                MigrationFigure(
                    part: part, sourceCount: a.count, destinationCount: b.count, sourceHash: a.hex,
                    destinationHash: b.hex))
        }
        progress(MigrationEvent(step: .verifying, part: "messages", done: 0, total: 2))
        let sourceExport = try await Self.exportDigest(source)
        let destinationExport = try await Self.exportDigest(destination)
        figures.append(
            MigrationFigure(
                part: "messages", sourceCount: sourceExport.messages, destinationCount: destinationExport.messages,
                sourceHash: sourceExport.sha256, destinationHash: destinationExport.sha256))
        for table in VerbatimTable.beforeRecords + VerbatimTable.afterRecords {
            progress(MigrationEvent(step: .verifying, part: table.rawValue, done: 0, total: 2))
            let a = try await Self.tableDigest(table, in: source, batch: batchSize)
            let b = try await Self.tableDigest(table, in: destination, batch: batchSize)
            figures.append(
                MigrationFigure(
                    part: table.rawValue, sourceCount: a.count, destinationCount: b.count, sourceHash: a.hex,
                    destinationHash: b.hex))
        }
        let files = try await Self.fileDigest(source, checkingIn: destination.fileStore)
        let stored = try await Self.fileDigest(destination, checkingIn: destination.fileStore)
        figures.append(
            MigrationFigure(
                part: "files", sourceCount: files.count, destinationCount: stored.count, sourceHash: files.hex,
                destinationHash: stored.hex))
        let differing = figures.filter { !$0.matches }.map(\.part)
        guard differing.isEmpty else { throw MigrationMismatch(figures: figures, parts: differing) }
        return figures
    }

    /// A running SHA-256 and count of one part's records.
    struct Digest {
        var hasher = SHA256()
        var count = 0

        mutating func add(_ bytes: [UInt8]) {
            hasher.update(data: bytes)
            count += 1
        }

        var hex: String { hasher.finalize().map { String(format: "%02x", $0) }.joined() }
    }

    /// A finished digest.
    struct Sealed: Sendable {
        var count: Int
        var hex: String
    }

    /// Digests of users, dialogs, membership and revisions from one snapshot: each record's fields, in the order
    /// and form the shared reader gives them on every backend.
    private static func recordDigests(_ archive: any ArchiveReader) async throws -> [String: Sealed] {
        try await archive.withSnapshot { snapshot in
            var digests: [String: Digest] = [:]
            func add(_ part: String, _ record: some Any) {
                digests[part, default: Digest()].add(Array("\(record)\n".utf8))
            }
            for try await batch in snapshot.users(ids: nil) {
                for record in batch { add("users", record) }
            }
            for try await batch in snapshot.dialogs(ids: nil) {
                for record in batch { add("dialogs", record) }
            }
            for try await batch in snapshot.memberships(dialogIDs: nil) {
                for record in batch { add("dialog_membership", record) }
            }
            for try await batch in snapshot.revisions(matching: nil) {
                for record in batch.items { add("message_revisions", record) }
            }
            return digests.mapValues { Sealed(count: $0.count, hex: $0.hex) }
        }
    }

    /// The JSON Lines export of every message with raw records, written to a temporary file and hashed.
    private static func exportDigest(_ archive: any ArchiveReader) async throws -> MessageExport.Summary {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "qbarchive-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("messages.jsonl").path
        let selection = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        let export = MessageExport(selection: selection, format: .jsonl, raw: true)
        return try await OwnThread.run { try await export.run(archive: archive, to: path) }
    }

    /// A verbatim table's rows in key order.
    private static func tableDigest(
        _ table: VerbatimTable, in archive: any VerbatimTableAccess, batch: Int
    ) async throws -> Digest {
        var digest = Digest()
        var after: [TableCell]?
        var bytes: [UInt8] = []
        while true {
            let rows = try await archive.verbatimRows(table, after: after, limit: batch)
            for row in rows {
                bytes.removeAll(keepingCapacity: true)
                for cell in row { cell.appendDigestBytes(to: &bytes) }
                digest.add(bytes)
            }
            guard rows.count == batch, let last = rows.last else { break }
            after = Array(last.prefix(table.key.count))
        }
        return digest
    }

    /// The hashes of the files an archive records as stored (sorted), each checked to be in `store`: a file
    /// missing from it is left out, so the counts differ.
    private static func fileDigest(_ archive: any ArchiveReader, checkingIn store: FileStore) async throws -> Digest {
        var digest = Digest()
        for file in try await archive.storedFiles().sorted(by: { $0.sha256 < $1.sha256 })
        where store.contains(file.sha256) {
            digest.add(Array("\(file.sha256) \(file.size)\n".utf8))
        }
        return digest
    }
}

/// ``MigrationError/mismatch(parts:)`` with the figures that show it.
public struct MigrationMismatch: Error, LocalizedError, Sendable {
    public var figures: [MigrationFigure]
    public var parts: [String]

    public var errorDescription: String? { MigrationError.mismatch(parts: parts).errorDescription }
}
