import Archive
import Foundation
import QuickBlox

/// Formats one dialog's messages as a conversation a person reads: names, UTC times, attachments
/// listed, edits and deletions marked.
enum TranscriptWriter {
    /// The heading of a dialog's transcript, from its first message's names; `deletedAt`, when the archive holds
    /// the dialog as deleted for everyone, is said under it (its messages are not marked one by one).
    static func heading(_ hit: SearchHit, deletedAt: Int? = nil) -> String {
        let type =
            switch hit.dialogType {
            case 1: "public group"
            case 2: "group"
            case 3: "private"
            default: "dialog"
            }
        var name =
            hit.dialogName.map { safe($0, breaks: false) }
            ?? (hit.dialogType == 3 ? "private dialog" : "unnamed dialog")
        // Only a message's header starts a line with `[`: a dialog named `[2024-03-01 10:00:00] Alice…` must not
        // read as a message, so its first `[` is written out like a control character.
        if let bracket = name.firstIndex(where: { $0 != " " && $0 != "\t" }), name[bracket] == "[" {
            name.replaceSubrange(bracket...bracket, with: #"\u{5B}"#)
        }
        let deleted =
            deletedAt.map {
                "The dialog was deleted for everyone: gone from the server as of \(ISO8601.format($0)); "
                    + "its messages are as they were archived.\n"
            } ?? ""
        return "\(name) — \(type) dialog \(hit.message.dialogID)\n\(deleted)Times are UTC. Edits and deletions are "
            + "marked; earlier versions are in revisions.jsonl.\n\n"
    }

    /// A message's lines, ending with a newline; each attachment says where the bundle holds its file,
    /// or why it does not (`files`, from ``FileReferenceResolver``).
    static func lines(_ hit: SearchHit, files: [FileReference] = [], carriage: FileReference.Carriage = .bundled)
        -> String
    {
        var out: [UInt8] = []
        write(hit, files: files, carriage: carriage, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends ``lines(_:files:carriage:)``'s bytes to `out`. A bundle writes a line for every message: the
    /// common one — one line of text, no attachment, never edited — is copied as bytes, with no `String` made
    /// and no JSON parsed (`attachments` is `[]`). Line breaks and control characters in the names and texts
    /// are made harmless on the way (TranscriptWriter+Breaks.swift).
    static func write(
        _ hit: SearchHit, files: [FileReference] = [], carriage: FileReference.Carriage = .bundled,
        into out: inout [UInt8]
    ) {
        let message = hit.message
        out.append(UInt8(ascii: "["))
        appendTime(message.dateSent, into: &out)
        out.append(contentsOf: "] ".utf8)
        if let name = hit.senderName ?? hit.senderLogin {
            appendSafe(name, breaks: false, into: &out)
        } else if let sender = message.senderID {
            out.append(contentsOf: "user ".utf8)
            JSONObjectWriter.appendDecimal(sender, into: &out)
        } else {
            out.append(contentsOf: "unknown sender".utf8)
        }
        if let login = hit.senderLogin {
            out.append(contentsOf: " (".utf8)
            appendSafe(login, breaks: false, into: &out)
            out.append(UInt8(ascii: ")"))
        }
        out.append(contentsOf: ": ".utf8)
        // Every line break in the text starts an indented continuation line, and control characters are
        // written out (TranscriptWriter+Breaks.swift): a text cannot forge a header line.
        appendSafe(message.text ?? "", breaks: true, into: &out)
        out.append(UInt8(ascii: "\n"))
        if message.attachmentsJSON != "[]", let attachments = try? JSONValue(parsing: message.attachmentsJSON),
            case .array(let items) = attachments
        {
            for item in items {
                let file = files.isEmpty ? nil : files.reference(for: item)
                out.append(contentsOf: "    [attachment: ".utf8)
                appendSafe("\(describe(item))\(file?.transcriptSuffix(carriage) ?? "")", breaks: false, into: &out)
                out.append(contentsOf: "]\n".utf8)
            }
        }
        if message.edited > 0 {
            out.append(contentsOf: "    [edited \(message.edited) time\(message.edited == 1 ? "" : "s")]\n".utf8)
        }
        if let deletedAt = message.deletedAt {
            out.append(contentsOf: "    [deleted: gone from the server as of \(ISO8601.format(deletedAt))]\n".utf8)
        }
    }

    /// Appends `2025-03-01 12:34:56`: the ISO 8601 time's bytes with a space for its `T` and without its `Z`.
    /// Foundation's `replacingOccurrences` bridges through `NSString` on Linux: it was 18 % of a bundle export's
    /// CPU (`perf record`, 1M messages); splitting every text by characters took another 5 %.
    static func appendTime(_ seconds: Int, into out: inout [UInt8]) {
        let start = out.count
        ISO8601.write(seconds, into: &out)
        if out.last == UInt8(ascii: "Z") { out.removeLast() }
        for index in start..<out.count where out[index] == UInt8(ascii: "T") { out[index] = UInt8(ascii: " ") }
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
