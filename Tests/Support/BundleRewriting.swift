import Crypto
import Export
import Foundation

/// Bundles changed the way anyone who edits one can: a file's bytes changed, then its manifest entry,
/// SHA256SUMS and the manifest's own checksum made to match again, unsigned. Such a bundle passes
/// verification (without a key), so what an import does with a record it cannot read can be tested.
package enum BundleRewriting {
    /// Writes `target`, in `source`'s container format: `source` with `file`'s bytes replaced by `change(bytes)`.
    package static func rewrite(
        _ source: String, to target: String, file: String, change: ([UInt8]) throws -> [UInt8]
    ) throws {
        var entries = try AttachmentFixture.entries(source).filter { $0.path != "manifest.sig" }
        guard let manifestIndex = entries.firstIndex(where: { $0.path == "manifest.json" }),
            let fileIndex = entries.firstIndex(where: { $0.path == file }),
            let format = try ContainerReader(path: source).formatAfterFirstEntry()
        else { throw CocoaError(.fileReadCorruptFile) }
        var manifest = try BundleManifest(parsing: entries[manifestIndex].bytes)
        entries[fileIndex].bytes = try change(entries[fileIndex].bytes)
        func describe(_ path: String, _ bytes: [UInt8]) {
            guard let index = manifest.files.firstIndex(where: { $0.path == path }) else { return }
            manifest.files[index].size = bytes.count
            manifest.files[index].sha256 = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            if path.hasSuffix(".jsonl") { manifest.files[index].records = bytes.count(where: { $0 == 10 }) }
        }
        describe(file, entries[fileIndex].bytes)
        if let sums = entries.firstIndex(where: { $0.path == "SHA256SUMS" }) {
            entries[sums].bytes = Array(BundleManifest.checksumLines(manifest.files).utf8)
            describe("SHA256SUMS", entries[sums].bytes)
        }
        entries[manifestIndex].bytes = manifest.serialized()
        let output = try OutputFile(path: target)
        // In the encoding the manifest names, as the verifier will encode it again.
        let encoding = ContainerEncoding(manifestName: manifest.containerEncodingName) ?? .serial
        let writer = try ContainerWriter(format: format, encoding: encoding) { bytes in try output.write(bytes) }
        for entry in entries {
            try writer.beginEntry(path: entry.path, size: entry.bytes.count, modificationTime: manifest.entryTime)
            try writer.write(entry.bytes)
        }
        try writer.finish()
        try output.commit()
    }
}

extension ContainerReader {
    /// The container's format, known once its first entry is read.
    fileprivate func formatAfterFirstEntry() throws -> ContainerFormat? {
        _ = try nextEntry()
        return format
    }
}
