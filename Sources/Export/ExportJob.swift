import Archive
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
            let summary = try await BundleExport(
                selection: selection, container: container, createdAt: createdAt, signingKeyPath: sign,
                toolVersion: version, maxPartSize: maxPartSize, attachments: attachments, maxBytes: maxBytes
            ).run(archive: archive, to: path, progress: progress)
            return Result(
                messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256,
                files: Dictionary(uniqueKeysWithValues: summary.parts.map { ($0.path, $0.sha256) }))
        }
        let summary = try await MessageExport(selection: selection, format: format, raw: raw, excel: excel)
            .run(archive: archive, to: path, progress: progress)
        return Result(
            messages: summary.messages, bytes: summary.bytes, sha256: summary.sha256, files: [path: summary.sha256])
    }

    /// Records the export in the audit log: when, what was selected, where it went, its hash.
    /// - Returns: `false` when the archive could not record it (opened read-only).
    public func audit(_ result: Result, archive: any ArchiveWriter, path: String, at time: Int = ArchiveTime.now())
        async
        -> Bool
    {
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
        ])
        return (try? await archive.appendAudit(action: "export", detail: detail, at: time)) != nil
    }
}
