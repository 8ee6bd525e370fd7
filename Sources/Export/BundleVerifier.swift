import Crypto
import Foundation
import QuickBlox

/// Checks a bundle: structure, every file's size, SHA-256 and record count, the manifest's own hash, the
/// signature, and that the container's bytes are exactly the canonical encoding of its contents.
///
/// The last check is what makes one flipped byte anywhere detectable: a tar header's padding, a zip's
/// central directory or a gzip header's time field are not covered by any content hash, and libarchive
/// reads past some of them without complaint. Bundles are deterministic, so the verifier rebuilds the
/// container from the verified contents and the manifest's fixed metadata — never from the (possibly
/// damaged) headers — and compares hashes. When the bundle was written with another libarchive version
/// (recorded in the manifest), the compressed bytes may legitimately differ: the report says so instead
/// of failing.
public struct BundleVerifier: Sendable {
    /// A public key file the signature must match; `nil` accepts an unsigned bundle.
    public var publicKeyPath: String?

    public init(publicKeyPath: String? = nil) {
        self.publicKeyPath = publicKeyPath
    }

    /// What a successful verification established.
    public struct Report: Sendable, Hashable {
        public var manifest: BundleManifest
        public var format: ContainerFormat
        /// The fingerprint of the key that signed the manifest, if signed.
        public var signer: String?
        /// SHA-256 of the whole bundle file.
        public var sha256: String
        /// Whether the container bytes equal their canonical encoding (`false` only for another library version).
        public var canonical: Bool
        /// Whether a `BUNDLE.sha256` file was found and matched.
        public var sidecarChecked: Bool
    }

    /// Verifies the bundle at `path`.
    /// - Throws: ``BundleProblem`` naming the first bad file, or ``ExportError`` for an unreadable input or key.
    public func verify(path: String) throws -> Report {
        let wanted = try publicKeyPath.map(SigningKey.loadPublic)
        let digest = try Self.fileSHA256(path)
        let name = URL(fileURLWithPath: path).lastPathComponent
        let sidecarChecked = try Self.checkSidecar(path: path, name: name, digest: digest)
        do {
            return try check(path: path, name: name, digest: digest, wanted: wanted, sidecarChecked: sidecarChecked)
        } catch let error as ContainerError {
            throw BundleProblem(file: error.entry ?? name, reason: "cannot be read: \(error.message)")
        }
    }

    /// Checks `BUNDLE.sha256` when there is one: it must be one `sha256sum` line naming this bundle with its
    /// digest — a checksum file naming another file would have `sha256sum -c` check that file instead.
    /// - Returns: whether a checksum file was found (and matched).
    private static func checkSidecar(path: String, name: String, digest: String) throws -> Bool {
        let sidecarPath = path + ".sha256"
        let sidecarName = name + ".sha256"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: sidecarPath, isDirectory: &isDirectory) else { return false }
        guard !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: sidecarPath),
            let text = String(data: data, encoding: .utf8)
        else {
            throw BundleProblem(file: sidecarName, reason: "cannot be read as a checksum file (UTF-8 text)")
        }
        let sidecar: ChecksumFile
        do {
            sidecar = try ChecksumFile(parsing: text)
        } catch {
            throw BundleProblem(file: sidecarName, reason: "is not a checksum file: it \(error.reason)")
        }
        guard sidecar.name == name else {
            throw BundleProblem(
                file: sidecarName,
                reason:
                    "names another file (\(sidecar.name.debugDescription)), not \(name): sha256sum -c would check that file"
            )
        }
        guard sidecar.sha256 == digest else {
            throw BundleProblem(file: name, reason: "does not match its checksum file \(sidecarName)")
        }
        return true
    }

    /// Whether a bundle carries a signature (`manifest.sig` right after the manifest); the signature itself is
    /// checked by ``verify(path:)``.
    public static func isSigned(path: String) throws -> Bool {
        let name = URL(fileURLWithPath: path).lastPathComponent
        do {
            let reader = try ContainerReader(path: path)
            guard let head = try reader.nextEntry(), head.path == "manifest.json" else {
                throw BundleProblem(file: name, reason: "does not start with manifest.json: not a qbarchive bundle")
            }
            _ = try readSmall(reader, entry: head.path)
            return try reader.nextEntry()?.path == "manifest.sig"
        } catch let error as ContainerError {
            throw BundleProblem(file: error.entry ?? name, reason: "cannot be read: \(error.message)")
        }
    }

    private func check(
        path: String, name: String, digest: String, wanted: Curve25519.Signing.PublicKey?, sidecarChecked: Bool
    ) throws -> Report {
        let reader = try ContainerReader(path: path)
        guard let head = try reader.nextEntry(), head.path == "manifest.json", let format = reader.format else {
            throw BundleProblem(file: name, reason: "does not start with manifest.json: not a qbarchive bundle")
        }
        let manifestBytes = try Self.readSmall(reader, entry: head.path)
        let manifest = try BundleManifest(parsing: manifestBytes)
        if let part = manifest.part {
            let mine = manifest.set.filter { $0.part == part.number }.map { "\($0.path) \($0.sha256) \($0.size)" }
            let listed = manifest.files.filter { !BundleManifest.perPartFiles.contains($0.path) }
                .map { "\($0.path) \($0.sha256) \($0.size)" }
            guard part.number >= 1, part.number <= part.of, mine == listed else {
                throw BundleProblem(file: "manifest.json", reason: "lists files that disagree with its own part list")
            }
        }
        // The contents encoded again on a thread of their own, beside the reading: compared with the container.
        let encodingName = manifest.containerEncodingName
        guard let encoding = ContainerEncoding(manifestName: encodingName) else {
            throw BundleProblem(
                file: "manifest.json",
                reason: "names the container encoding \"\(encodingName ?? "")\", which this qbarchive does not know "
                    + "(a bundle from a later version: verify it with that version)")
        }
        let writer = ContainerRebuild(format: format, encoding: encoding)
        defer { writer.abandon() }
        try writer.beginEntry(path: head.path, size: manifestBytes.count, modificationTime: manifest.entryTime)
        try writer.write(manifestBytes)

        var entry = try reader.nextEntry()
        var signer: String?
        if entry?.path == "manifest.sig" {
            let signature = try Self.readSmall(reader, entry: "manifest.sig")
            let key = try BundleSignature.check(signature, manifest: manifestBytes)
            if let wanted, key.rawRepresentation != wanted.rawRepresentation {
                throw BundleProblem(
                    file: "manifest.sig",
                    reason: "was made with key \(SigningKey.fingerprint(key)), not \(SigningKey.fingerprint(wanted))")
            }
            signer = SigningKey.fingerprint(key)
            try writer.beginEntry(path: "manifest.sig", size: signature.count, modificationTime: manifest.entryTime)
            try writer.write(signature)
            entry = try reader.nextEntry()
        } else if wanted != nil {
            throw BundleProblem(file: "manifest.sig", reason: "is missing: the bundle is not signed")
        }

        for file in manifest.files {
            guard let current = entry else { throw BundleProblem(file: file.path, reason: "is missing") }
            guard current.path == file.path else {
                throw BundleProblem(
                    file: current.path,
                    reason: "is not where the manifest expects \(file.path) (unexpected or out of order)")
            }
            if file.path.hasPrefix("attachments/"), file.path != "attachments/" + file.sha256 {
                throw BundleProblem(file: file.path, reason: "is not named after its SHA-256 in the manifest")
            }
            try writer.beginEntry(path: file.path, size: file.size, modificationTime: manifest.entryTime)
            var hasher = SHA256()
            var size = 0
            var counter = RecordCounter(csv: file.path.hasSuffix(".csv"))
            while true {
                let chunk = try reader.read()
                if chunk.isEmpty { break }
                size += chunk.count
                guard size <= file.size else {
                    throw BundleProblem(file: file.path, reason: "is longer than the manifest says")
                }
                hasher.update(data: chunk)
                if file.records != nil { counter.count(chunk) }
                try writer.write(chunk)
            }
            guard size == file.size else {
                throw BundleProblem(file: file.path, reason: "has \(size) bytes, the manifest says \(file.size)")
            }
            guard BundleManifest.hex(hasher.finalize()) == file.sha256 else {
                throw BundleProblem(file: file.path, reason: "does not match its SHA-256 in the manifest")
            }
            if let records = file.records, counter.records != records {
                throw BundleProblem(
                    file: file.path, reason: "holds \(counter.records) records, the manifest says \(records)")
            }
            entry = try reader.nextEntry()
        }
        if let extra = entry { throw BundleProblem(file: extra.path, reason: "is not listed in the manifest") }
        let canonical = try writer.finish() == digest
        if !canonical {
            let library = manifest.body["container"]?["library"]?.stringValue
            if library == ContainerWriter.libraryVersion {
                throw BundleProblem(
                    file: name,
                    reason: "has container bytes (headers, padding or compression framing) that differ from the "
                        + "canonical encoding of its verified contents: it was altered")
            }
        }
        return Report(
            manifest: manifest, format: format, signer: signer, sha256: digest, canonical: canonical,
            sidecarChecked: sidecarChecked)
    }

    /// Checks that verified parts of a split bundle form one complete set: the same set, every part once.
    /// - Throws: ``BundleProblem`` naming a missing, repeated or foreign part.
    public static func checkComplete(_ reports: [Report], paths: [String]) throws(BundleProblem) {
        let parts = reports.compactMap(\.manifest.part)
        guard !parts.isEmpty else { return }
        guard parts.count == reports.count, let count = parts.first?.of,
            let first = reports.first?.manifest.body["set"],
            reports.allSatisfy({ $0.manifest.body["set"] == first && $0.manifest.part?.of == count })
        else {
            throw BundleProblem(file: paths.joined(separator: ", "), reason: "are not parts of one bundle")
        }
        let numbers = parts.map(\.number).sorted()
        guard numbers == Array(1...count) else {
            let missing = Set(1...count).subtracting(numbers).sorted().map(String.init).joined(separator: ", ")
            throw BundleProblem(
                file: "part \(missing.isEmpty ? "numbers" : missing)",
                reason: missing.isEmpty ? "appear more than once" : "of \(count) is missing")
        }
    }

    /// Reads a whole small entry (the manifest, the signature): at most 64 MiB.
    private static func readSmall(_ reader: ContainerReader, entry: String) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            let chunk = try reader.read()
            if chunk.isEmpty { return bytes }
            bytes += chunk
            guard bytes.count <= 64 << 20 else { throw BundleProblem(file: entry, reason: "is implausibly large") }
        }
    }

    /// SHA-256 (hex) of a file, streamed.
    public static func fileSHA256(_ path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ExportError.cannotRead(path: path, reason: "no such file or no permission")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let data = try handle.read(upToCount: 1 << 20), !data.isEmpty { hasher.update(data: data) }
        return BundleManifest.hex(hasher.finalize())
    }
}

/// Counts the records of a JSON Lines file (lines) or a CSV file (records after the header, line breaks
/// inside quoted fields excluded), as the bytes stream by.
struct RecordCounter {
    let csv: Bool
    private var quoted = false
    private var lines = 0

    init(csv: Bool) {
        self.csv = csv
    }

    mutating func count(_ bytes: [UInt8]) {
        guard csv else {
            // JSON Lines hold no line break inside a record: the line breaks are counted with `memchr`, which
            // tests many bytes at a time (a byte-by-byte loop was a quarter of a verification's CPU).
            lines += bytes.withUnsafeBytes { buffer in
                guard var next = buffer.baseAddress else { return 0 }
                let end = next + buffer.count
                var found = 0
                while next < end, let hit = memchr(next, 10, end - next) {
                    found += 1
                    next = UnsafeRawPointer(hit) + 1
                }
                return found
            }
            return
        }
        for byte in bytes {
            if byte == UInt8(ascii: "\"") {
                quoted.toggle()
            } else if byte == 10, !quoted {
                lines += 1
            }
        }
    }

    var records: Int { csv ? max(0, lines - 1) : lines }
}
