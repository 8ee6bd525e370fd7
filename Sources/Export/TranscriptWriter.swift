import Archive
import Foundation
import QuickBlox

/// Formats one dialog's messages as a conversation a person reads: names, UTC times, attachments
/// listed, edits and deletions marked.
enum TranscriptWriter {
    /// The heading of a dialog's transcript, from its first message's names.
    static func heading(_ hit: SearchHit) -> String {
        let type =
            switch hit.dialogType {
            case 1: "public group"
            case 2: "group"
            case 3: "private"
            default: "dialog"
            }
        let name = hit.dialogName ?? (hit.dialogType == 3 ? "private dialog" : "unnamed dialog")
        return "\(name) — \(type) dialog \(hit.message.dialogID)\nTimes are UTC. Edits and deletions are marked; "
            + "earlier versions are in revisions.jsonl.\n\n"
    }

    /// A message's lines, ending with a newline; each attachment says where the bundle holds its file,
    /// or why it does not (`files`, from ``FileReferenceResolver``).
    static func lines(_ hit: SearchHit, files: [FileReference] = [], carriage: FileReference.Carriage = .bundled)
        -> String
    {
        let message = hit.message
        let sender = hit.senderName ?? hit.senderLogin ?? message.senderID.map { "user \($0)" } ?? "unknown sender"
        let login = hit.senderLogin.map { " (\($0))" } ?? ""
        let body = message.text ?? ""
        var out = "[\(time(message.dateSent))] \(sender)\(login): "
        if body.utf8.contains(0x0A) {
            // Split by characters: a CR LF is one character and stays inside its line.
            let text = body.split(separator: "\n", omittingEmptySubsequences: false)
            out += "\(text.first.map(String.init) ?? "")\n"
            for continuation in text.dropFirst() { out += "    \(continuation)\n" }
        } else {
            out += body + "\n"
        }
        if let attachments = try? JSONValue(parsing: message.attachmentsJSON), case .array(let items) = attachments {
            for item in items {
                let file = files.isEmpty ? nil : files.reference(for: item)
                out += "    [attachment: \(describe(item))\(file?.transcriptSuffix(carriage) ?? "")]\n"
            }
        }
        if message.edited > 0 {
            out += "    [edited \(message.edited) time\(message.edited == 1 ? "" : "s")]\n"
        }
        if let deletedAt = message.deletedAt {
            out += "    [deleted: gone from the server as of \(ISO8601.format(deletedAt))]\n"
        }
        return out
    }

    /// `2025-03-01 12:34:56`: the ISO 8601 time with a space for its `T` and without its `Z`, mapped byte by
    /// byte. Foundation's `replacingOccurrences` bridges through `NSString` on Linux: it was 18 % of a bundle
    /// export's CPU (`perf record`, 1M messages); splitting every text by characters took another 5 %.
    static func time(_ seconds: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20)
        for byte in ISO8601.format(seconds).utf8 where byte != UInt8(ascii: "Z") {
            bytes.append(byte == UInt8(ascii: "T") ? UInt8(ascii: " ") : byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func describe(_ attachment: JSONValue) -> String {
        guard case .object(let fields) = attachment else { return attachment.jsonString }
        var parts: [String] = []
        for key in ["type", "name", "id", "uid", "url"] {
            if case .string(let value)? = fields[key] { parts.append(key == "type" ? value : "\(key) \(value)") }
        }
        return parts.isEmpty ? attachment.jsonString : parts.joined(separator: ", ")
    }
}
