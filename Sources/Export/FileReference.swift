import Archive
import QuickBlox

/// The file an exported attachment names: where the export holds it, or why it does not.
///
/// Each exported message and revision lists these as `attachment_files` (JSON), the CSV column of the same
/// name and the transcripts' attachment lines, from the archive's `attachment_files` record of the
/// attachment's ``AttachmentKey``. A compliance reader learns from it which file is which, and why a file
/// is absent (never downloaded, too large, gone from the server, ...). Documented in docs/exports.md.
struct FileReference: Sendable, Hashable {
    /// How an export carries the stored files.
    enum Carriage: Sendable, Hashable {
        /// A bundle: each stored file is in it as `attachments/SHA256`.
        case bundled
        /// A bundle made with `--no-attachments`: the files are named, not included.
        case leftOut
        /// JSON Lines and CSV: a single file carries no other files.
        case none
    }

    var key: String
    /// ``FileStatus/listed`` too for a key the archive does not record yet (not downloaded either).
    var status: FileStatus
    /// SHA-256 and size of the stored bytes (`ok`); the size also when the file was too large.
    var sha256: String?
    var size: Int?
    var contentType: String?
    /// `attachments/SHA256` when the export holds the file.
    var path: String?

    /// The path of a stored file inside a bundle.
    static func bundlePath(_ sha256: String) -> String { "attachments/" + sha256 }

    /// Why the file is not in the export, in words; `nil` when it is.
    func note(_ carriage: Carriage) -> String? {
        switch status {
        case .ok:
            switch carriage {
            case .bundled: return nil
            case .leftOut: return "stored in the archive, left out of this bundle (--no-attachments)"
            case .none: return "stored in the archive; only bundles carry files"
            }
        case .listed: return "not archived: not downloaded"
        case .failed: return "not archived: the download failed"
        case .tooLarge: return "not archived: too large"
        case .external: return "not archived: on another host"
        case .gone: return "not archived: gone from the server"
        }
    }

    /// `{"content_type","key","note","path","sha256","size","status"}`.
    func json(_ carriage: Carriage) -> JSONValue {
        .object([
            "content_type": contentType.map(JSONValue.string) ?? .null, "key": .string(key),
            "note": note(carriage).map(JSONValue.string) ?? .null, "path": path.map(JSONValue.string) ?? .null,
            "sha256": sha256.map(JSONValue.string) ?? .null, "size": size.map(JSONValue.int) ?? .null,
            "status": .string(status.rawValue),
        ])
    }

    /// The CSV column's word for this file: its path in the export, else `sha256:HEX` for a stored file
    /// left out, else the status (`listed`, `too_large`, ...).
    var csvToken: String {
        if let path { return path }
        if let sha256, status == .ok { return "sha256:" + sha256 }
        return status.rawValue
    }

    /// What a transcript adds after the attachment: ` → attachments/SHA256`, or why the file is absent.
    func transcriptSuffix(_ carriage: Carriage) -> String {
        if let path { return " → " + path }
        if let sha256, status == .ok { return " (stored as sha256 \(sha256), left out of this bundle)" }
        return note(carriage).map { " (\($0))" } ?? ""
    }
}

extension [FileReference] {
    /// The `attachment_files` array.
    func json(_ carriage: FileReference.Carriage) -> JSONValue { .array(map { $0.json(carriage) }) }

    /// The reference for one attachment of the message (by its key), if it names a file.
    func reference(for attachment: JSONValue) -> FileReference? {
        guard let decoded = try? Attachment(json: attachment), let key = AttachmentKey.of(decoded) else {
            return nil
        }
        return first { $0.key == key }
    }
}
