import Archive
import HTTPTypes
import Hummingbird
import NIOCore
import QuickBlox
import Search

/// JSON bodies for the API: canonical (sorted keys) and built from bytes, so message records use the
/// same encoder as `qbarchive search --format jsonl` and exports.
enum JSONResponse {
    static func make(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        var bytes = bytes
        bytes.append(0x0A)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func make(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        make(value.serialized(), status: status)
    }

    /// One message record, with its `attachment_files`.
    static func record(_ hit: SearchHit, files: [String: ArchivedFile]) -> String {
        var out: [UInt8] = []
        MessageRecord.writeJSON(
            hit, raw: false, files: attachmentFiles(hit.message.attachmentsJSON, files), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON array of message records (the documented export fields, and `attachment_files`).
    static func records(_ hits: [SearchHit], files: [String: ArchivedFile]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, hit) in hits.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            MessageRecord.writeJSON(
                hit, raw: false, files: attachmentFiles(hit.message.attachmentsJSON, files), into: &out)
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// The files an attachments array names, each once in attachment order, as the API shows them:
    /// `{"content_type","key","sha256","size","status","url"}`, `url` being `/files/SHA256` for a stored file.
    static func attachmentFiles(_ attachmentsJSON: String, _ files: [String: ArchivedFile]) -> JSONValue {
        var seen: Set<String> = []
        var list: [JSONValue] = []
        for item in (try? JSONValue(parsing: attachmentsJSON))?.arrayValue ?? [] {
            guard let attachment = try? Attachment(json: item), let key = AttachmentKey.of(attachment),
                seen.insert(key).inserted
            else { continue }
            let file = files[key]
            let stored = file?.status == .ok ? file?.sha256 : nil
            list.append([
                "key": .string(key), "status": .string(file?.status.rawValue ?? FileStatus.listed.rawValue),
                "sha256": stored.map(JSONValue.string) ?? .null, "size": file?.size.map(JSONValue.int) ?? .null,
                "content_type": (file?.contentType ?? file?.declaredContentType).map(JSONValue.string) ?? .null,
                "url": stored.map { .string("/files/" + $0) } ?? .null,
            ])
        }
        return .array(list)
    }
}

extension DialogSummary {
    /// The dialog as the API lists it.
    var json: JSONValue {
        [
            "id": .string(id), "type": .int(type), "name": name.map(JSONValue.string) ?? .null,
            "title": .string(title),
            "occupants": .array(occupants.map { ["id": .int($0.id), "label": .string($0.label)] }),
            "messages": .int(messages), "last_message_at": lastMessageAt.map { .string(ISO8601.format($0)) } ?? .null,
            "deleted_at": deletedAt.map { .string(ISO8601.format($0)) } ?? .null,
            "hidden_for": MessageRecord.hiddenForJSON(hiddenFor),
        ]
    }
}
