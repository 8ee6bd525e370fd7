import Crypto
import Foundation
import QuickBlox

/// `manifest.json`: what a bundle holds and how to check it.
///
/// Written as canonical JSON (compact, keys sorted) plus a newline, with `manifest_sha256` — the SHA-256 of
/// the same object without that key — so a changed byte anywhere in the manifest is detected even in an
/// unsigned bundle. `files` lists every other file with its size, SHA-256 and record count.
public struct BundleManifest: Sendable, Hashable {
    /// One file of the bundle.
    public struct File: Sendable, Hashable {
        public var path: String
        public var size: Int
        public var sha256: String
        /// Lines of a `.jsonl`, records of a `.csv` (header excluded), `nil` for text files.
        public var records: Int?
    }

    public static let formatName = "qbarchive-bundle"
    /// Files every part of a split bundle has its own copy of, left out of the part list (``set``).
    public static let perPartFiles: Set<String> = ["README.txt", "SHA256SUMS"]

    /// `SHA256SUMS`: every file of a bundle (or part) but the manifest, its signature and itself, as
    /// `sha256sum -c` reads it, so that an unpacked bundle can be checked with coreutils alone.
    public static func checksumLines(_ files: [File]) -> String {
        files.filter { $0.path != "SHA256SUMS" }.map { "\($0.sha256)  \($0.path)\n" }.joined()
    }
    public static let formatVersion = 1

    /// The manifest as a JSON object, without `manifest_sha256`.
    public var body: [String: JSONValue]
    public var files: [File]

    /// The modification time of every entry: the newest `date_sent` exported (not the clock), so the
    /// same data gives the same bytes.
    public var entryTime: Int {
        if case .int(let time)? = body["entry_mtime"] { return time }
        return 0
    }

    /// The container encoding the manifest names (`container.encoding`); `nil` in manifests written before the
    /// parallel encoding, which were all written serially (``ContainerEncoding/init(manifestName:)``).
    public var containerEncodingName: String? { body["container"]?["encoding"]?.stringValue }

    /// For one part of a split bundle: its number and the number of parts.
    public var part: (number: Int, of: Int)? {
        guard case .int(let number)? = body["part"]?["number"], case .int(let count)? = body["part"]?["of"] else {
            return nil
        }
        return (number, count)
    }

    /// For one part of a split bundle: every file of every part (README.txt aside), with its part number.
    public var set: [(path: String, part: Int, sha256: String, size: Int)] {
        guard case .array(let items)? = body["set"] else { return [] }
        return items.compactMap { item in
            guard let path = item["path"]?.stringValue, case .int(let part)? = item["part"],
                let sha = item["sha256"]?.stringValue, case .int(let size)? = item["size"]
            else { return nil }
            return (path, part, sha, size)
        }
    }

    /// The canonical bytes written to `manifest.json`.
    public func serialized() -> [UInt8] {
        var object = body
        object["files"] = .array(
            files.map { file in
                .object([
                    "path": .string(file.path), "size": .int(file.size), "sha256": .string(file.sha256),
                    "records": file.records.map(JSONValue.int) ?? .null,
                ])
            })
        let unsigned = JSONValue.object(object).serialized()
        object["manifest_sha256"] = .string(Self.hex(SHA256.hash(data: unsigned)))
        return JSONValue.object(object).serialized() + [10]
    }

    /// Reads and checks a manifest's bytes: canonical form and `manifest_sha256`.
    public init(parsing bytes: [UInt8]) throws(BundleProblem) {
        guard let value = try? JSONValue(parsing: bytes), case .object(var object) = value else {
            throw BundleProblem(file: "manifest.json", reason: "is not a JSON object")
        }
        guard case .string(let claimed)? = object.removeValue(forKey: "manifest_sha256"),
            Self.hex(SHA256.hash(data: JSONValue.object(object).serialized())) == claimed,
            value.serialized() + [10] == bytes
        else { throw BundleProblem(file: "manifest.json", reason: "does not match its own manifest_sha256") }
        guard case .string(Self.formatName)? = object["format"] else {
            throw BundleProblem(file: "manifest.json", reason: "is not a qbarchive bundle manifest")
        }
        guard case .array(let list)? = object.removeValue(forKey: "files") else {
            throw BundleProblem(file: "manifest.json", reason: "lists no files")
        }
        var files: [File] = []
        for item in list {
            guard case .object(let fields) = item, case .string(let path)? = fields["path"],
                case .int(let size)? = fields["size"], case .string(let sha)? = fields["sha256"]
            else { throw BundleProblem(file: "manifest.json", reason: "has a malformed files entry") }
            var records: Int?
            if case .int(let count)? = fields["records"] { records = count }
            files.append(File(path: path, size: size, sha256: sha, records: records))
        }
        self.body = object
        self.files = files
    }

    init(body: [String: JSONValue], files: [File]) {
        self.body = body
        self.files = files
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// The first thing wrong with a bundle: which file, and what.
public struct BundleProblem: Error, LocalizedError, Sendable, Hashable {
    public var file: String
    public var reason: String

    public init(file: String, reason: String) {
        self.file = file
        self.reason = reason
    }

    public var errorDescription: String? { "\(file) \(reason)" }
}
