import Archive
import Foundation
import QuickBlox

/// Restores a bundle into an archive: verified first, then read file by file, in batches.
///
/// Attachment files first, into the archive's file store; then dialogs, membership and messages, then
/// revisions and users, so foreign keys hold, each message's and revision's files recorded as it is
/// restored (`ok` for the files just stored). The archive keeps what it already has (see
/// ``Archive/ArchiveWriter/importRecords(_:)``): importing is idempotent, and export → import into a new
/// archive → export gives the same bundle.
public struct BundleImport: Sendable {
    public var publicKeyPath: String?
    /// How many records a batch holds, and how many batches may wait for the archive while it stores one (about
    /// 3 MB each at 1,000 records): the archive spends a while on each commit, and the reading goes on meanwhile.
    var batchSize = 1000
    var batchesAhead = 16

    public init(publicKeyPath: String? = nil) {
        self.publicKeyPath = publicKeyPath
    }

    /// What an import did.
    public struct Summary: Sendable, Hashable {
        /// Records read from the bundle, and how many of them the archive did not have.
        public var records: Int
        public var inserted: Int
        public var manifest: BundleManifest
        /// Attachment files copied into the archive's file store (some may have been there already), and
        /// their bytes.
        public var files = 0
        public var fileBytes = 0
        /// Records the archive held already where the bundle's copy is newer: kept as the archive held them.
        public var notMerged = NotMerged()
    }

    /// The order files are restored in; others (CSV, transcripts, deletions, README) duplicate these.
    static let order = ["dialogs.jsonl", "membership.jsonl", "messages.jsonl", "revisions.jsonl", "users.jsonl"]

    /// Verifies `bundle`, then restores it into `archive`. Reads and hashes as it goes: call it on a thread of
    /// its own (``OwnThread/run(_:)``).
    /// - Throws: ``BundleProblem`` for a bundle that fails verification (nothing is imported), ``Stopped`` for a
    ///   record that cannot be read, or a database error.
    public func run(bundle: String, into archive: any ArchiveWriter) async throws -> Summary {
        try await run(bundles: [bundle], into: archive)
    }

    /// Verifies every part of a bundle (all parts of a split bundle, in any order), then restores them.
    public func run(bundles: [String], into archive: any ArchiveWriter) async throws -> Summary {
        try await run(try verify(bundles: bundles), into: archive)
    }

    /// Verifies every part of a bundle (all parts of a split bundle, in any order) and that it is a copy of an
    /// archive, touching no archive: what ``run(_:into:)`` restores.
    /// - Throws: ``BundleProblem`` naming the part and file that failed.
    public func verify(bundles: [String]) throws -> VerifiedBundle {
        let verifier = BundleVerifier(publicKeyPath: publicKeyPath)
        let reports = try bundles.map { try verifier.verify(path: $0) }
        try BundleVerifier.checkComplete(reports, paths: bundles)
        // A redacted or subject-access bundle is a disclosure, not a copy: restored, it would pass for an
        // archive whose texts and people were never what the bundle shows.
        if let index = reports.firstIndex(where: { $0.manifest.body["privacy"] != nil }) {
            throw BundleProblem(
                file: bundles[index],
                reason: "was exported with --redact or --subject (manifest.json: privacy), so it is not a copy of "
                    + "an archive and cannot be imported as one; import an unredacted bundle")
        }
        return VerifiedBundle(paths: bundles, reports: reports)
    }

    /// Restores a verified bundle into `archive`. Reads and hashes as it goes: call it on a thread of its own
    /// (``OwnThread/run(_:)``).
    /// - Throws: ``BundleProblem`` when an attachment file cannot be restored (no record is stored then);
    ///   ``Stopped`` when a record cannot be read although its file passed verification — every record before
    ///   it is stored, and the error says how many; a database error.
    public func run(_ verified: VerifiedBundle, into archive: any ArchiveWriter) async throws -> Summary {
        let (reports, bundles) = (verified.reports, verified.paths)
        let restored = try Self.restoreAttachments(reports, bundles: bundles, into: archive.fileStore)
        // Two stages: while the archive stores a batch, the next are read, decompressed and parsed here, up to
        // `batchesAhead` of them. Batches are stored one at a time, in the bundle's order (dialogs before their
        // messages, messages before their revisions), so foreign keys hold as before. The archive may hold several
        // batches in one transaction (``ArchiveWriter/importing(_:)``) and then spends a while on its commit: the
        // reading goes on meanwhile. Every batch stored is committed by the time `importing` returns or throws.
        let (records, outcome) = try await archive.importing { session in
            try await withThrowingTaskGroup(of: Void.self) { stores in
                var records = 0
                var outcome = ImportOutcome()
                let (queue, queued) = AsyncStream.makeStream(of: ImportBatch.self)
                let (results, stored) = AsyncThrowingStream.makeStream(of: ImportOutcome.self)
                // Not on this task's own thread (``OwnThread``), which goes on reading: a child preferring it would
                // wait there until the reading stops.
                stores.addTask(executorPreference: globalConcurrentExecutor) {
                    do {
                        for await batch in queue { stored.yield(try await session.store(batch)) }
                        stored.finish()
                    } catch {
                        stored.finish(throwing: error)
                    }
                }
                var pending = results.makeAsyncIterator()
                var waiting = 0
                func store(_ batch: ImportBatch) async throws {
                    if waiting >= batchesAhead, let stored = try await pending.next() {
                        outcome += stored
                        waiting -= 1
                    }
                    records += batch.count
                    waiting += 1
                    queued.yield(batch)
                }
                func drain() async throws {
                    queued.finish()
                    while let stored = try await pending.next() { outcome += stored }
                }
                var batch = ImportBatch()
                do {
                    for name in Self.order {
                        guard let index = reports.firstIndex(where: { $0.manifest.files.contains { $0.path == name } })
                        else { continue }
                        do {
                            let reader = try ContainerReader(path: bundles[index])
                            while let entry = try reader.nextEntry(), entry.path != name {}
                            var lines = LineSplitter()
                            var number = 0
                            while true {
                                let chunk = try reader.read()
                                if chunk.isEmpty { break }
                                for line in lines.feed(chunk) {
                                    number += 1
                                    try Self.add(line, of: name, number: number, restored: restored, to: &batch)
                                    if batch.count >= batchSize {
                                        try await store(batch)
                                        batch = ImportBatch()
                                    }
                                }
                            }
                        } catch let error as ContainerError {
                            throw BundleProblem(
                                file: error.entry ?? bundles[index], reason: "cannot be read: \(error.message)")
                        }
                        if batch.count > 0 { try await store(batch) }
                        batch = ImportBatch()
                    }
                } catch let problem as BundleProblem {
                    // Every record before the one that cannot be read is stored, so that what the archive holds
                    // afterwards is a prefix of the bundle a user can be told about in one sentence.
                    if batch.count > 0 { try await store(batch) }
                    try await drain()
                    throw Stopped(problem: problem, records: records, inserted: outcome.inserted)
                }
                try await drain()
                return (records, outcome)
            }
        }
        try await archive.settleAfterBulkChange()
        let sizes = reports.flatMap(\.manifest.files).filter {
            restored[$0.sha256] != nil && $0.path.hasPrefix("attachments/")
        }
        return Summary(
            records: records, inserted: outcome.inserted, manifest: reports[0].manifest, files: sizes.count,
            fileBytes: sizes.map(\.size).reduce(0, +), notMerged: outcome.notMerged)
    }

    /// The identity of the archive a bundle came from, from its manifest (not verified: ``run(bundle:into:)`` does that).
    public static func identity(ofBundle path: String) throws -> ArchiveIdentity? {
        do {
            let reader = try ContainerReader(path: path)
            guard try reader.nextEntry()?.path == "manifest.json" else { return nil }
            var bytes: [UInt8] = []
            while bytes.count < 64 << 20 {
                let chunk = try reader.read()
                if chunk.isEmpty { break }
                bytes += chunk
            }
            return identity(of: try BundleManifest(parsing: bytes))
        } catch let error as ContainerError {
            throw BundleProblem(file: error.entry ?? path, reason: "cannot be read: \(error.message)")
        }
    }

    /// The identity of the archive a manifest says the bundle came from; `nil` when it names none.
    static func identity(of manifest: BundleManifest) -> ArchiveIdentity? {
        guard case .object(let archive)? = manifest.body["archive"], let id = archive["id"]?.stringValue,
            let uuid = UUID(uuidString: id), let created = archive["created_at"]?.stringValue,
            let createdAt = ISO8601.parse(created)
        else { return nil }
        return ArchiveIdentity(id: uuid, createdAt: createdAt)
    }

    private static func add(
        _ line: [UInt8], of file: String, number: Int, restored: [String: String], to batch: inout ImportBatch
    ) throws {
        guard let value = try? JSONValue(parsing: line), let record = ImportRecord(value) else {
            throw BundleProblem(file: file, reason: "line \(number) is not a record this version can read")
        }
        do {
            switch file {
            case "dialogs.jsonl": batch.dialogs.append(try record.dialog())
            case "membership.jsonl": batch.membership.append(try record.membership())
            case "messages.jsonl":
                // Derived here, on the thread that reads the bundle, while the archive stores the batch before.
                batch.messages.append(try record.message())
                batch.files += Self.files(of: value, restored: restored)
            case "revisions.jsonl":
                batch.revisions.append(try record.revision())
                batch.files += Self.files(of: value, restored: restored)
            default: batch.users.append(try record.user())
            }
        } catch {
            throw BundleProblem(file: file, reason: "line \(number): \(error.reason)")
        }
    }
}

/// Splits a byte stream into lines (without their newline).
struct LineSplitter {
    private var pending: [UInt8] = []

    mutating func feed(_ chunk: [UInt8]) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var start = chunk.startIndex
        for index in chunk.indices where chunk[index] == 10 {
            if pending.isEmpty {
                lines.append(Array(chunk[start..<index]))
            } else {
                lines.append(pending + chunk[start..<index])
                pending.removeAll()
            }
            start = index + 1
        }
        pending += chunk[start...]
        return lines
    }
}
