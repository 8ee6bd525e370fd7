import Archive
import Crypto
import Foundation
import QuickBlox
import Search

/// Writes a bundle: the selected messages, everything that explains them and the files their attachments
/// name, in one deterministic, verifiable container.
///
/// Files are first streamed into a staging directory beside the output (hashed and counted as they are
/// written), then the manifest is made and the container is streamed from the staged files: every
/// file's size and hash must be known before the container holds it, and memory stays flat. Attachment
/// files are not staged: the archive's content-addressed store already knows their size and SHA-256,
/// and they are streamed from it (and hashed again) as `attachments/SHA256`, after the other files.
/// Deterministic: entries in a fixed order (manifest first, attachments last by SHA-256), fixed times
/// taken from the data, uid/gid 0, no host names, no clock unless `createdAt` is given.
public struct BundleExport: Sendable {
    public var selection: ExportSelection
    public var container: ContainerFormat
    /// The creation time to record; `nil` records none, so that the bytes depend on the data alone.
    public var createdAt: Int?
    /// The Ed25519 key that signs the manifest (`manifest.sig`), if any.
    public var signingKeyPath: String?
    /// The qbarchive version recorded in the manifest.
    public var toolVersion: String
    /// Split into parts of at most this many bytes of files each (never splitting a file); `nil` for one bundle.
    public var maxPartSize: Int?
    /// Carry the stored files of the messages' (and their revisions') attachments; `false` names them only
    /// (`--no-attachments`).
    public var attachments: Bool
    /// The most bytes the export may write, staging included (``ByteBudget``); `nil` for no cap.
    public var maxBytes: Int?
    /// Replace files already under the bundle's names (`--force`); otherwise such a file is an error
    /// (``ExportError/exists(path:)``) and nothing is replaced.
    public var replace = false
    /// What every string written is cleared of (`--redact`, `--redact-pattern`); empty by default.
    public var redaction = Redaction.none
    /// The archive's audit entry of this bundle's creation (`export_begin`), carried as `audit.jsonl` and
    /// named in the manifest; `nil` leaves both out, so that the bytes depend on the data alone.
    public var creation: AuditEntry?

    public init(
        selection: ExportSelection, container: ContainerFormat = .tarGz, createdAt: Int? = nil,
        signingKeyPath: String? = nil, toolVersion: String, maxPartSize: Int? = nil, attachments: Bool = true,
        maxBytes: Int? = nil
    ) {
        self.maxBytes = maxBytes
        self.attachments = attachments
        self.selection = selection
        self.container = container
        self.createdAt = createdAt
        self.signingKeyPath = signingKeyPath
        self.toolVersion = toolVersion
        self.maxPartSize = maxPartSize
    }

    /// What a bundle export wrote.
    public struct Summary: Sendable, Hashable {
        /// One written file: a whole bundle, or one part of a split bundle.
        public struct Part: Sendable, Hashable {
            public var path: String
            public var manifest: BundleManifest
            /// SHA-256 (hex) and size of the file.
            public var sha256: String
            public var bytes: Int
        }

        public var parts: [Part]
        public var messages: Int

        /// The (first) manifest.
        public var manifest: BundleManifest { parts[0].manifest }
        /// The bundle's SHA-256; for a split bundle, the SHA-256 of its parts' checksum lines in order.
        public var sha256: String {
            guard parts.count > 1 else { return parts[0].sha256 }
            let lines = parts.map { "\($0.sha256)  \(URL(fileURLWithPath: $0.path).lastPathComponent)\n" }.joined()
            return BundleManifest.hex(SHA256.hash(data: Data(lines.utf8)))
        }
        /// Bytes written, all parts together.
        public var bytes: Int { parts.map(\.bytes).reduce(0, +) }
    }

    /// Writes the bundle to `path` and its checksum to `path.sha256` (`sha256sum -c` format).
    ///
    /// Writes and compresses as it reads: call it on a thread of its own (``OwnThread/run(_:)``).
    public func run(
        archive: any ArchiveReader, to path: String, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Summary {
        let signingKey = try signingKeyPath.map(SigningKey.loadPrivate)
        let budget = maxBytes.map(ByteBudget.init)
        let stage = try StagingDirectory(beside: path, budget: budget)
        defer { stage.remove() }
        var staged = try await stageFiles(archive: archive, stage: stage, progress: progress)
        staged.files.append(try stage.write("README.txt", BundleReadme.text(container: container), records: nil))
        if let creation {
            staged.files.append(try stage.write("audit.jsonl", Self.auditLine(creation), records: 1))
        }
        staged.files.sort { $0.path < $1.path }
        let store = archive.fileStore
        if attachments { staged.files += try Self.attachmentFiles(staged.attachments, store: store) }
        var body = staged.body
        body["format"] = .string(BundleManifest.formatName)
        body["format_version"] = .int(BundleManifest.formatVersion)
        body["tool"] = .object(["name": .string("qbarchive"), "version": .string(toolVersion)])
        body["container"] = .object([
            "format": .string(container.rawValue), "library": .string(ContainerWriter.libraryVersion),
            "encoding": .string(ContainerEncoding.current.rawValue),
        ])
        body["created_at"] = createdAt.map { .string(ISO8601.format($0)) } ?? .null
        if let creation {
            body["audit"] = .object([
                "file": .string("audit.jsonl"), "entry": .int(Int(creation.id)), "hash": .string(creation.hashHex),
            ])
        }
        body["selection"] = .object([
            "where": selection.whereText.map(JSONValue.string) ?? .null,
            "dialog": selection.dialogID.map(JSONValue.string) ?? .null,
            "since": selection.since.map(JSONValue.string) ?? .null,
            "until": selection.until.map(JSONValue.string) ?? .null,
            "resolved": selection.resolved,
        ])
        // Each part carries SHA256SUMS of its own files, right after README.txt; its bytes are made here.
        let plan = Self.plan(staged.files, limit: maxPartSize).map { files -> [BundleManifest.File] in
            let sums = Array(BundleManifest.checksumLines(files).utf8)
            let entry = BundleManifest.File(
                path: "SHA256SUMS", size: sums.count, sha256: BundleManifest.hex(SHA256.hash(data: sums)), records: nil)
            var files = files
            files.insert(entry, at: files.first?.path == "README.txt" ? 1 : 0)
            return files
        }
        var parts: [Summary.Part] = []
        for (index, files) in plan.enumerated() {
            var partBody = body
            if plan.count > 1 {
                partBody["part"] = .object(["number": .int(index + 1), "of": .int(plan.count)])
                partBody["set"] = .array(
                    plan.enumerated().flatMap { number, files in
                        files.filter { !BundleManifest.perPartFiles.contains($0.path) }.map { file in
                            JSONValue.object([
                                "path": .string(file.path), "part": .int(number + 1), "sha256": .string(file.sha256),
                                "size": .int(file.size),
                            ])
                        }
                    })
            }
            let manifest = BundleManifest(body: partBody, files: files)
            let target = Self.partPath(path, number: index + 1, of: plan.count, container: container)
            do {
                parts.append(
                    try write(manifest, signingKey: signingKey, stage: stage, store: store, budget: budget, to: target))
            } catch {
                Self.remove(parts)  // a split bundle is whole or absent
                throw error
            }
        }
        return Summary(parts: parts, messages: staged.messages)
    }

    /// Writes one container: manifest (and signature) first, then the staged files and the attachment files
    /// from the store; then `path.sha256`.
    private func write(
        _ manifest: BundleManifest, signingKey: Curve25519.Signing.PrivateKey?, stage: StagingDirectory,
        store: FileStore, budget: ByteBudget?, to path: String
    ) throws -> Summary.Part {
        let manifestBytes = manifest.serialized()
        var head: [(String, [UInt8])] = [("manifest.json", manifestBytes)]
        if let signingKey {
            head.append(("manifest.sig", try BundleSignature.sign(manifestBytes, with: signingKey)))
        }
        let output = try OutputFile(path: path, budget: budget, replace: replace)
        do {
            let writer = try ContainerWriter(format: container, encoding: .current) { bytes in
                try output.write(bytes)
            }
            for (name, bytes) in head {
                try writer.beginEntry(path: name, size: bytes.count, modificationTime: manifest.entryTime)
                try writer.write(bytes)
            }
            for file in manifest.files {
                try writer.beginEntry(path: file.path, size: file.size, modificationTime: manifest.entryTime)
                if file.path.hasPrefix("attachments/") {
                    try Self.streamAttachment(file, store: store, into: writer)
                } else if file.path == "SHA256SUMS" {
                    try writer.write(Array(BundleManifest.checksumLines(manifest.files).utf8))
                } else {
                    try stage.read(file.path) { chunk throws(ContainerError) in try writer.write(chunk) }
                }
            }
            try writer.finish()
            // An earlier export's checksum file must not outlive the bundle it describes: it goes first, so
            // a crash or error between the two renames leaves a whole bundle without a checksum file (which
            // verifies) rather than beside the wrong one (which fails verification and sha256sum -c).
            if replace, unlink(path + ".sha256") != 0, errno != ENOENT {
                throw ExportError.cannotWrite(path: path + ".sha256", reason: String(cString: strerror(errno)))
            }
            let digest = try output.commit()
            do {
                let sidecar = try OutputFile(path: path + ".sha256", budget: budget, replace: replace)
                try sidecar.write(ChecksumFile(sha256: digest, name: URL(fileURLWithPath: path).lastPathComponent).text)
                try sidecar.commit()
            } catch {
                // Not replacing, the checksum name was taken meanwhile: ours, just placed, must not sit beside
                // another export's checksum. Replacing, the old checksum file is gone: the bundle stays (whole,
                // it verifies without one).
                if !replace { unlink(path) }
                throw error
            }
            return Summary.Part(path: path, manifest: manifest, sha256: digest, bytes: output.size)
        } catch let error as ContainerError {
            output.discard()
            // The container reports its output's failure as its own; the budget's is the one to tell.
            if let budget, budget.spent > budget.limit { throw ExportError.quotaExceeded(limit: budget.limit) }
            throw ExportError.container(error.localizedDescription)
        } catch {
            output.discard()
            throw error
        }
    }

    /// `audit.jsonl`'s line: the entry with its detail as the exact text the chain hashes, so that anyone can
    /// recompute `hash` = SHA-256(previous hash's bytes + "\n" + time + "\n" + action + "\n" + detail).
    static func auditLine(_ entry: AuditEntry) -> String {
        JSONValue.object([
            "id": .int(Int(entry.id)), "time": .int(entry.at), "at": .string(ISO8601.format(entry.at)),
            "action": .string(entry.action), "detail": .string(entry.detail),
            "previous_hash": entry.previousHashHex.map(JSONValue.string) ?? .null, "hash": .string(entry.hashHex),
        ]).jsonString + "\n"
    }

    /// Removes the parts already written when a later part fails.
    static func remove(_ parts: [Summary.Part]) {
        for part in parts {
            unlink(part.path)
            unlink(part.path + ".sha256")
        }
    }

    /// Groups the files, in order, into parts of at most `limit` bytes (README.txt first in each). A file
    /// is never split: one larger than a part — a big attachment — gets a part of its own, which exceeds
    /// the limit. Sizes are before compression, so a part file stays about within it.
    static func plan(_ files: [BundleManifest.File], limit: Int?) -> [[BundleManifest.File]] {
        guard let limit, let readme = files.first(where: { $0.path == "README.txt" }) else { return [files] }
        let overhead = 1024  // a tar header and padding per entry, and the file's line in its manifest
        // Every part's manifest lists the whole set (about 150 bytes a file) besides its own files; with
        // very many files a small part size is mostly manifest, and parts exceed it rather than multiply.
        let budget = max(limit / 4, limit - readme.size - overhead - 256 * 1024 - files.count * 160)
        var parts: [[BundleManifest.File]] = []
        var current: [BundleManifest.File] = []
        var used = 0
        for file in files where file.path != "README.txt" {
            if !current.isEmpty, used + file.size + overhead > budget {
                parts.append(current)
                current = []
                used = 0
            }
            current.append(file)
            used += file.size + overhead
        }
        if !current.isEmpty || parts.isEmpty { parts.append(current) }
        return parts.map { [readme] + $0 }
    }

    /// `case.tar.gz` → `case.part02.tar.gz` when there are several parts.
    static func partPath(_ path: String, number: Int, of count: Int, container: ContainerFormat) -> String {
        guard count > 1 else { return path }
        let digits = max(2, String(count).count)
        let label = ".part" + String(repeating: "0", count: digits - String(number).count) + String(number)
        let suffix = "." + container.fileExtension
        guard path.hasSuffix(suffix) else { return path + label }
        return String(path.dropLast(suffix.count)) + label + suffix
    }
}
