import ArchiveStore
import Foundation
import QueryLanguage
import QuickBlox

/// Renders search hits as table rows, JSON lines or CSV records, one line at a time (results stream).
public struct SearchOutput: Sendable {
    public var format: SearchFormat
    public var highlighter: Highlighter
    /// ANSI colour for highlights (on a terminal only).
    public var color: Bool
    /// The snippet width of a table row.
    public var width: Int

    public init(format: SearchFormat, query: Query, color: Bool, width: Int = 80) {
        self.format = format
        highlighter = Highlighter(query: query)
        self.color = color
        self.width = width
    }

    /// The stable CSV columns, in order.
    public static let csvColumns = [
        "id", "date_sent", "date", "dialog_id", "dialog_name", "dialog_type", "sender_id", "sender_login",
        "sender_name", "recipient_id", "text", "attachments", "custom", "edited", "deleted_at",
    ]

    /// The line printed before the results, if any (the CSV header).
    public var header: String? {
        format == .csv ? Self.csvColumns.joined(separator: ",") : nil
    }

    /// One result as one line (without the newline).
    public func line(_ hit: SearchHit) -> String {
        switch format {
        case .table: return tableRow(hit, marker: nil)
        case .jsonl: return jsonLine(hit)
        case .csv: return csvRecord(hit)
        }
    }

    /// A table row: `2024-03-01 10:00  dialog  sender  snippet`; `marker` prefixes context lines.
    public func tableRow(_ hit: SearchHit, marker: String?) -> String {
        let message = hit.message
        let time = String(ISO8601.format(message.dateSent).prefix(16)).replacingOccurrences(of: "T", with: " ")
        let dialog = pad(hit.dialogName ?? Self.typeName(hit.dialogType), 20)
        let sender = pad(hit.senderLabel, 16)
        var text = highlighter.snippet(
            message.text ?? "", width: width, open: color ? "\u{1B}[1;33m" : "", close: color ? "\u{1B}[0m" : "")
        if message.edited > 0 { text += " (edited)" }
        if message.deletedAt != nil { text += " (deleted)" }
        if message.attachmentsJSON != "[]" { text += " [attachment]" }
        return (marker ?? "") + "\(time)  \(dialog)  \(sender)  \(text)"
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count > width
            ? String(text.prefix(width - 1)) + "…" : text + String(repeating: " ", count: width - text.count)
    }

    private static func typeName(_ type: Int?) -> String {
        switch type {
        case 1: return "(public)"
        case 2: return "(group)"
        case 3: return "(private)"
        default: return "(dialog)"
        }
    }

    /// A JSON object with sorted keys: the message's fields, its dialog's and sender's names, and its state.
    public func jsonLine(_ hit: SearchHit) -> String {
        let message = hit.message
        var out: [UInt8] = []
        var object = JSONObjectWriter(into: &out)
        object.value("attachments", (try? JSONValue(parsing: message.attachmentsJSON)) ?? .array([]), into: &out)
        object.value("custom", (try? JSONValue(parsing: message.customJSON)) ?? .object([:]), into: &out)
        object.timestamp("date", message.dateSent, into: &out)
        object.int("date_sent", message.dateSent, into: &out)
        object.timestamp("deleted_at", message.deletedAt, into: &out)
        object.string("dialog_id", message.dialogID, into: &out)
        object.string("dialog_name", hit.dialogName, into: &out)
        object.int("dialog_type", hit.dialogType, into: &out)
        object.int("edited", message.edited, into: &out)
        object.string("id", message.id, into: &out)
        object.int("recipient_id", message.recipientID, into: &out)
        object.int("sender_id", message.senderID, into: &out)
        object.string("sender_login", hit.senderLogin, into: &out)
        object.string("sender_name", hit.senderName, into: &out)
        object.string("text", message.text, into: &out)
        object.finish(into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// An RFC 4180 record of ``csvColumns``.
    public func csvRecord(_ hit: SearchHit) -> String {
        let message = hit.message
        let fields: [String?] = [
            message.id, String(message.dateSent), ISO8601.format(message.dateSent), message.dialogID, hit.dialogName,
            hit.dialogType.map(String.init), message.senderID.map(String.init), hit.senderLogin, hit.senderName,
            message.recipientID.map(String.init), message.text, message.attachmentsJSON, message.customJSON,
            String(message.edited), message.deletedAt.map(ISO8601.format),
        ]
        return fields.map { Self.csvField($0 ?? "") }.joined(separator: ",")
    }

    /// Quotes a field when it holds a comma, a quote or a line break, doubling its quotes (RFC 4180).
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
