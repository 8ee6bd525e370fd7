import Archive
import Foundation
import QuickBlox

/// One export as the command line and the service ask for it: the format, the selection and the output
/// options, run and then recorded in the archive's audit log.
public struct ExportJob: Sendable {
    public var format: ExportFormat
    public var selection: ExportSelection
    public var raw: Bool
    public var excel: Bool
    public var container: ContainerFormat
    public var createdAt: Int?
    /// A private key file to sign a bundle's manifest with.
    public var sign: String?
    /// The qbarchive version (recorded in bundle manifests).
    public var version: String
    /// Split a bundle into parts of at most this many bytes.
    public var maxPartSize: Int?
    /// A bundle carries the stored attachment files (`false`: `--no-attachments`, references only).
    public var attachments: Bool
    /// The most bytes a bundle export may write (the service's quota); `nil` for no cap.
    public var maxBytes: Int?
    /// Replace files already at the target (`--force`); otherwise an existing file is
    /// ``ExportError/exists(path:)`` (see ``existingTargets(path:)`` to refuse before any work).
    public var replace = false
    /// What every string written is cleared of (`--redact`, `--redact-pattern`); empty by default. A
    /// subject-access export's pseudonyms follow from ``ExportSelection/subject``.
    public var redaction = Redaction.none
    /// Who asked, for the `export_begin` audit entry (the service's `by`, `from`, `via`); empty on the
    /// command line.
    public var requestedBy: [String: JSONValue] = [:]

    public init(
        format: ExportFormat, selection: ExportSelection, raw: Bool = false, excel: Bool = false,
        container: ContainerFormat = .tarGz, createdAt: Int? = nil, sign: String? = nil, version: String,
        maxPartSize: Int? = nil, attachments: Bool = true
    ) {
        self.maxPartSize = maxPartSize
        self.attachments = attachments
        self.format = format
        self.selection = selection
        self.raw = raw
        self.excel = excel
        self.container = container
        self.createdAt = createdAt
        self.sign = sign
        self.version = version
    }

    /// What was written.
    public struct Result: Sendable, Hashable {
        public var messages: Int
        public var bytes: Int
        /// SHA-256 (hex) of the output file (of a split bundle: of its parts' checksum lines).
        public var sha256: String
        /// The files written, with their SHA-256: one, or a split bundle's parts.
        public var files: [String: String] = [:]
        /// What was redacted and pseudonymised, as the manifest says it (``ExportPrivacy``); `nil` for nothing.
        public var privacy: JSONValue?
        /// The audit entry recorded as the bundle began, which the bundle carries (`audit.jsonl`).
        public var begun: AuditEntry?
    }

    /// Writes the export to `path` (`-` is standard output for JSON Lines and CSV). Writes as it reads:
    /// call it on a thread of its own (``OwnThread/run(_:)``).
    ///
    /// A bundle whose archive is given as `auditing` first records an `export_begin` entry in its audit log
    /// and carries that entry as `audit.jsonl`: the bundle names its own creation in the archive's chain
    /// (and the `export` entry that ``audit(_:archive:path:removed:at:)`` records afterwards names the
    /// bundle's SHA-256). Without it — a read-only archive, or the library's own tests — the bundle depends
    /// on the data alone.
    public func run(
        archive: any ArchiveReader, path: String, auditing: (any ArchiveWriter)? = nil,
        at time: Int = ArchiveTime.now(), progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Result {
        if format == .bundle {
            let begun = try? await auditing?.appendAudit(action: "export_begin", detail: beginDetail(path), at: time)
            var bundle = BundleExport(
                selection: selection, container: container, createdAt: createdAt, signingKeyPath: sign,
                toolVersion: version, maxPartSize: maxPartSize, attachments: attachments, maxBytes: maxBytes)
            bundle.replace = replace
            bundle.redaction = redaction
            bundle.creation = begun
            let summary = try await bundle.run(archive: archive, to: path, progress: progress)
            return Result(
                messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256,
                files: Dictionary(uniqueKeysWithValues: summary.parts.map { ($0.path, $0.sha256) }),
                privacy: summary.manifest.body["privacy"], begun: begun)
        }
        var export = MessageExport(selection: selection, format: format, raw: raw, excel: excel)
        export.replace = replace
        export.redaction = redaction
        let summary = try await export.run(archive: archive, to: path, progress: progress)
        return Result(
            messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256, files: [path: summary.sha256],
            privacy: summary.privacy)
    }

    /// Records the export in the audit log: when, what was selected, where it went, its hash.
    /// - Returns: `false` when the archive could not record it (opened read-only).
    /// `removed` lists older exports deleted by `--keep` after this one.
    public func audit(
        _ result: Result, archive: any ArchiveWriter, path: String, removed: [String] = [],
        at time: Int = ArchiveTime.now()
    ) async -> Bool {
        var detail = requestDetail(path)
        detail.merge([
            "messages": .int(result.messages), "bytes": .int(result.bytes), "sha256": .string(result.sha256),
            "files": .object(result.files.mapValues(JSONValue.string)),
            "replaced": .bool(replace), "removed": .array(removed.map(JSONValue.string)),
        ]) { _, outcome in outcome }
        if let privacy = result.privacy { detail["privacy"] = privacy }
        if let begun = result.begun {
            detail["begun"] = .object(["entry": .int(Int(begun.id)), "hash": .string(begun.hashHex)])
        }
        return (try? await archive.appendAudit(action: "export", detail: .object(detail), at: time)) != nil
    }
}

extension ExportJob {
    /// What was asked, as both audit entries record it: format, selection, output, signing, attachments.
    func requestDetail(_ path: String) -> [String: JSONValue] {
        [
            "format": .string(format == .bundle ? "bundle \(container.rawValue)" : format.rawValue),
            "where": selection.whereText.map(JSONValue.string) ?? .null,
            "dialog": selection.dialogID.map(JSONValue.string) ?? .null,
            "since": selection.since.map(JSONValue.string) ?? .null,
            "until": selection.until.map(JSONValue.string) ?? .null,
            "output": .string(path), "signed": .bool(sign != nil),
            "attachments": format == .bundle ? .bool(attachments) : .null,
        ]
    }

    /// What the `export_begin` entry records: the request, before anything is written (no counts, no hash).
    func beginDetail(_ path: String) -> JSONValue {
        var detail = requestDetail(path)
        detail["tool"] = .string("qbarchive \(version)")
        detail.merge(requestedBy) { _, asker in asker }
        if let subject = selection.subject { detail["subject"] = .int(subject.id) }
        if !redaction.isEmpty { detail["redact"] = redaction.manifestEntry }
        return .object(detail)
    }

    /// The files already under the names this export would write: the file itself, and for a bundle its
    /// checksum file and any split part (`NAME.part01.tar.gz`) with its checksum. Empty for standard output.
    public func existingTargets(path: String) -> [String] {
        guard path != "-" else { return [] }
        let exists = { (candidate: String) in access(candidate, F_OK) == 0 }
        var found = exists(path) ? [path] : []
        guard format == .bundle else { return found }
        if exists(path + ".sha256") { found.append(path + ".sha256") }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let suffix = "." + container.fileExtension
        let name = url.lastPathComponent
        let stem = name.hasSuffix(suffix) ? String(name.dropLast(suffix.count)) : name
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for other in names.sorted() where other.hasPrefix(stem + ".part") {
            let rest = other.dropFirst(stem.count + 5)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            let tail = rest.dropFirst(digits.count)
            let isPart = tail == suffix || tail == suffix + ".sha256" || (!name.hasSuffix(suffix) && tail.isEmpty)
            guard digits.count >= 2, isPart else { continue }
            found.append(path.contains("/") ? directory + "/" + other : other)
        }
        return found
    }
}
