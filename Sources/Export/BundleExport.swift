import ArchiveStore
import Crypto
import Foundation
import QuickBlox
import Search

/// Writes a bundle: the selected messages and everything that explains them, in one deterministic,
/// verifiable container.
///
/// Files are first streamed into a staging directory beside the output (hashed and counted as they are
/// written), then the manifest is made and the container is streamed from the staged files: every
/// file's size and hash must be known before the container holds it, and memory stays flat.
/// Deterministic: entries in a fixed order (manifest first), fixed times taken from the data, uid/gid
/// 0, no host names, no clock unless `createdAt` is given.
public struct BundleExport: Sendable {
    public var selection: ExportSelection
    public var container: ContainerFormat
    /// The creation time to record; `nil` records none, so that the bytes depend on the data alone.
    public var createdAt: Int?
    /// The Ed25519 key that signs the manifest (`manifest.sig`), if any.
    public var signingKeyPath: String?
    /// The qbarchive version recorded in the manifest.
    public var toolVersion: String

    public init(
        selection: ExportSelection, container: ContainerFormat = .tarGz, createdAt: Int? = nil,
        signingKeyPath: String? = nil, toolVersion: String
    ) {
        self.selection = selection
        self.container = container
        self.createdAt = createdAt
        self.signingKeyPath = signingKeyPath
        self.toolVersion = toolVersion
    }

    /// What a bundle export wrote.
    public struct Summary: Sendable, Hashable {
        public var manifest: BundleManifest
        /// SHA-256 (hex) and size of the bundle file.
        public var sha256: String
        public var bytes: Int
        public var messages: Int
    }

    /// Writes the bundle to `path` and its checksum to `path.sha256` (`sha256sum -c` format). Blocks its thread.
    public func run(archive: Archive, to path: String, progress: (Int) -> Void = { _ in }) throws -> Summary {
        let signingKey = try signingKeyPath.map(SigningKey.loadPrivate)
        let stage = try StagingDirectory(beside: path)
        defer { stage.remove() }
        var staged = try stageFiles(archive: archive, stage: stage, progress: progress)
        staged.files.append(try stage.write("README.txt", BundleReadme.text(container: container), records: nil))
        staged.files.sort { $0.path < $1.path }
        var body = staged.body
        body["format"] = .string(BundleManifest.formatName)
        body["format_version"] = .int(BundleManifest.formatVersion)
        body["tool"] = .object(["name": .string("qbarchive"), "version": .string(toolVersion)])
        body["container"] = .object([
            "format": .string(container.rawValue), "library": .string(ContainerWriter.libraryVersion),
        ])
        body["created_at"] = createdAt.map { .string(ISO8601.format($0)) } ?? .null
        body["selection"] = .object([
            "where": selection.whereText.map(JSONValue.string) ?? .null,
            "dialog": selection.dialogID.map(JSONValue.string) ?? .null,
            "since": selection.since.map(JSONValue.string) ?? .null,
            "until": selection.until.map(JSONValue.string) ?? .null,
        ])
        let manifest = BundleManifest(body: body, files: staged.files)
        let manifestBytes = manifest.serialized()
        var head: [(String, [UInt8])] = [("manifest.json", manifestBytes)]
        if let signingKey {
            head.append(("manifest.sig", try BundleSignature.sign(manifestBytes, with: signingKey)))
        }

        let output = try OutputFile(path: path)
        do {
            let writer = try ContainerWriter(format: container) { bytes in try output.write(bytes) }
            for (name, bytes) in head {
                try writer.beginEntry(path: name, size: bytes.count, modificationTime: manifest.entryTime)
                try writer.write(bytes)
            }
            for file in staged.files {
                try writer.beginEntry(path: file.path, size: file.size, modificationTime: manifest.entryTime)
                try stage.read(file.path) { chunk throws(ContainerError) in try writer.write(chunk) }
            }
            try writer.finish()
            let digest = try output.commit()
            let sidecar = try OutputFile(path: path + ".sha256")
            try sidecar.write("\(digest)  \(URL(fileURLWithPath: path).lastPathComponent)\n")
            try sidecar.commit()
            return Summary(manifest: manifest, sha256: digest, bytes: output.size, messages: staged.messages)
        } catch let error as ContainerError {
            output.discard()
            throw ExportError.container(error.localizedDescription)
        } catch {
            output.discard()
            throw error
        }
    }
}
