import Archive
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
    /// The zone times are written in; `nil` for UTC (`Z`).
    public var zone: TimeZone?

    public init(format: SearchFormat, query: Query, color: Bool, width: Int = 80, zone: TimeZone? = nil) {
        self.format = format
        highlighter = Highlighter(query: query)
        self.color = color
        self.width = width
        self.zone = zone
    }

    /// The stable CSV columns, in order: ``MessageRecord/csvColumns``.
    public static let csvColumns = MessageRecord.csvColumns

    /// The line printed before the results, if any (the CSV header).
    public var header: String? {
        format == .csv ? Self.csvColumns.joined(separator: ",") : nil
    }

    /// One result as one line (without the newline).
    public func line(_ hit: SearchHit) -> String {
        switch format {
        case .table: return tableRow(hit, marker: nil)
        case .jsonl, .json: return jsonLine(hit)
        case .csv: return csvRecord(hit)
        }
    }

    /// A table row: `2024-03-01 10:00  dialog  sender  snippet`; `marker` prefixes context lines.
    public func tableRow(_ hit: SearchHit, marker: String?) -> String {
        let message = hit.message
        let instant = zone.map { MessageRecord.iso(message.dateSent, $0) } ?? ISO8601.format(message.dateSent)
        let time = String(instant.prefix(16)).replacingOccurrences(of: "T", with: " ")
        // Archived text is other people's input: control and bidi characters are shown as escapes before the
        // highlight's own colour codes are added (``TerminalText``).
        let dialog = pad(TerminalText.neutralised(hit.dialogName ?? Self.typeName(hit.dialogType)), 20)
        let sender = pad(TerminalText.neutralised(hit.senderLabel), 16)
        var text = highlighter.snippet(
            TerminalText.neutralised(message.text ?? ""), width: width, open: color ? "\u{1B}[1;33m" : "",
            close: color ? "\u{1B}[0m" : "")
        if message.edited > 0 { text += " (edited)" }
        if message.deletedAt != nil { text += " (deleted)" }
        if !message.hiddenFor.isEmpty {
            text += " (hidden for " + message.hiddenFor.map { "user \($0.user)" }.joined(separator: ", ") + ")"
        }
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

    /// A JSON object with sorted keys; see ``MessageRecord/writeJSON(_:raw:into:)``.
    public func jsonLine(_ hit: SearchHit) -> String {
        var out: [UInt8] = []
        MessageRecord.writeJSON(hit, raw: false, zone: zone, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// An RFC 4180 record of ``csvColumns``.
    public func csvRecord(_ hit: SearchHit) -> String {
        var out: [UInt8] = []
        MessageRecord.writeCSV(hit, zone: zone, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Quotes a field when it holds a comma, a quote or a line break, doubling its quotes (RFC 4180).
    static func csvField(_ text: String) -> String {
        var out: [UInt8] = []
        MessageRecord.appendCSVField(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
