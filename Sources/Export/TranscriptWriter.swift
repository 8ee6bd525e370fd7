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
        let time = ISO8601.format(message.dateSent).replacingOccurrences(of: "T", with: " ").replacingOccurrences(
            of: "Z", with: "")
        let sender = hit.senderName ?? hit.senderLogin ?? message.senderID.map { "user \($0)" } ?? "unknown sender"
        let login = hit.senderLogin.map { " (\($0))" } ?? ""
        let text = (message.text ?? "").split(separator: "\n", omittingEmptySubsequences: false)
        var out = "[\(time)] \(sender)\(login): \(text.first.map(String.init) ?? "")\n"
        for continuation in text.dropFirst() { out += "    \(continuation)\n" }
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

    private static func describe(_ attachment: JSONValue) -> String {
        guard case .object(let fields) = attachment else { return attachment.jsonString }
        var parts: [String] = []
        for key in ["type", "name", "id", "uid", "url"] {
            if case .string(let value)? = fields[key] { parts.append(key == "type" ? value : "\(key) \(value)") }
        }
        return parts.isEmpty ? attachment.jsonString : parts.joined(separator: ", ")
    }
}
