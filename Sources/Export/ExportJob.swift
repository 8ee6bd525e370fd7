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
    }

    /// Writes the export to `path` (`-` is standard output for JSON Lines and CSV). Writes as it reads:
    /// call it on a thread of its own (``OwnThread/run(_:)``).
    public func run(archive: any ArchiveReader, path: String, progress: @escaping @Sendable (Int) -> Void = { _ in })
        async throws -> Result
    {
        if format == .bundle {
            var bundle = BundleExport(
                selection: selection, container: container, createdAt: createdAt, signingKeyPath: sign,
                toolVersion: version, maxPartSize: maxPartSize, attachments: attachments, maxBytes: maxBytes)
            bundle.replace = replace
            let summary = try await bundle.run(archive: archive, to: path, progress: progress)
            return Result(
                messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256,
                files: Dictionary(uniqueKeysWithValues: summary.parts.map { ($0.path, $0.sha256) }))
        }
        var export = MessageExport(selection: selection, format: format, raw: raw, excel: excel)
        export.replace = replace
        let summary = try await export.run(archive: archive, to: path, progress: progress)
        return Result(
            messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256, files: [path: summary.sha256])
    }

    /// Records the export in the audit log: when, what was selected, where it went, its hash.
    /// - Returns: `false` when the archive could not record it (opened read-only).
    /// `removed` lists older exports deleted by `--keep` after this one.
    public func audit(
        _ result: Result, archive: any ArchiveWriter, path: String, removed: [String] = [],
        at time: Int = ArchiveTime.now()
    ) async -> Bool {
        let detail = JSONValue.object([
            "format": .string(format == .bundle ? "bundle \(container.rawValue)" : format.rawValue),
            "where": selection.whereText.map(JSONValue.string) ?? .null,
            "dialog": selection.dialogID.map(JSONValue.string) ?? .null,
            "since": selection.since.map(JSONValue.string) ?? .null,
            "until": selection.until.map(JSONValue.string) ?? .null,
            "output": .string(path), "messages": .int(result.messages), "bytes": .int(result.bytes),
            "sha256": .string(result.sha256), "signed": .bool(sign != nil),
            "attachments": format == .bundle ? .bool(attachments) : .null,
            "files": .object(result.files.mapValues(JSONValue.string)),
            "replaced": .bool(replace), "removed": .array(removed.map(JSONValue.string)),
        ])
        return (try? await archive.appendAudit(action: "export", detail: detail, at: time)) != nil
    }
}

extension ExportJob {
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
