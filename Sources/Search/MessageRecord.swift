import Archive
import Foundation
import QuickBlox

/// How a message is written for machines: one JSON object per line, or one RFC 4180 CSV record.
///
/// Search (`--format jsonl|csv`) and exports share these encoders, so a moderator's result file and a
/// compliance export have the same documented fields. Both write into a caller's reused byte buffer:
/// exports write millions of records, and a `String` or a `JSONValue` per record dominated the cost.
/// JSON columns of the archive (attachments, custom parameters, the raw record) are already compact,
/// key-sorted JSON and are copied as they are.
public enum MessageRecord {
    /// The stable CSV columns, in order (documented in docs/exports.md): ``baseColumns``, then
    /// ``deletionColumns`` (new columns are only ever appended).
    public static let csvColumns = baseColumns + deletionColumns
    /// The columns every version wrote.
    public static let baseColumns = [
        "id", "date_sent", "date", "dialog_id", "dialog_name", "dialog_type", "sender_id", "sender_login",
        "sender_name", "recipient_id", "recipient_login", "recipient_name", "text", "attachments", "custom",
        "edited", "deleted_at", "updated_at", "first_seen_at", "last_seen_at",
    ]
    /// Per-user deletion (appended in issue 19): `hidden_for` and `deletion_evidence` as JSON text.
    public static let deletionColumns = ["hidden_for", "deletion_evidence"]

    /// `hidden_for` as JSON: `[{"since":"…","user":7},…]`, ascending by user.
    public static func hiddenForJSON(_ hidden: [HiddenFor]) -> JSONValue {
        .array(
            hidden.map { .object(["user": .int($0.user), "since": .string(ISO8601.format($0.since))]) })
    }

    /// Appends the message as a JSON object with sorted keys (no newline); `raw` adds the server's record.
    ///
    /// `files`, when given, is written as `attachment_files`: where an export holds each attachment's file,
    /// or why it does not (exports pass it; search output and the service leave it out).
    /// `zone`, when given, writes the timestamps with that zone's offset (`--tz`); exports write UTC (`Z`).
    public static func writeJSON(
        _ hit: SearchHit, raw: Bool, files: JSONValue? = nil, zone: TimeZone? = nil, into out: inout [UInt8]
    ) {
        let message = hit.message
        var object = JSONObjectWriter(into: &out)
        func timestamp(_ key: StaticString, _ seconds: Int?) {
            if let zone {
                object.string(key, seconds.map { iso($0, zone) }, into: &out)
            } else {
                object.timestamp(key, seconds, into: &out)
            }
        }
        if let files { object.value("attachment_files", files, into: &out) }
        object.json("attachments", message.attachmentsJSON, into: &out)
        object.json("custom", message.customJSON, into: &out)
        timestamp("date", message.dateSent)
        object.int("date_sent", message.dateSent, into: &out)
        timestamp("deleted_at", message.deletedAt)
        // Per-user deletion (docs/archive-schema.md): written only when there is something to say, so
        // records of messages nobody hid keep their shape.
        if let evidence = message.deletionEvidence { object.json("deletion_evidence", evidence, into: &out) }
        object.string("dialog_id", message.dialogID, into: &out)
        object.string("dialog_name", hit.dialogName, into: &out)
        object.int("dialog_type", hit.dialogType, into: &out)
        object.int("edited", message.edited, into: &out)
        timestamp("first_seen_at", message.firstSeenAt)
        if !message.hiddenFor.isEmpty { object.value("hidden_for", hiddenForJSON(message.hiddenFor), into: &out) }
        object.string("id", message.id, into: &out)
        timestamp("last_seen_at", message.lastSeenAt)
        if raw { object.json("raw", message.raw, into: &out) }
        object.int("recipient_id", message.recipientID, into: &out)
        object.string("recipient_login", hit.recipientLogin, into: &out)
        object.string("recipient_name", hit.recipientName, into: &out)
        object.int("sender_id", message.senderID, into: &out)
        object.string("sender_login", hit.senderLogin, into: &out)
        object.string("sender_name", hit.senderName, into: &out)
        object.string("text", message.text, into: &out)
        timestamp("updated_at", message.updatedAt)
        object.finish(into: &out)
    }

    /// Appends the message as one CSV record of ``csvColumns`` (no line ending).
    public static func writeCSV(_ hit: SearchHit, zone: TimeZone? = nil, into out: inout [UInt8]) {
        writeBaseCSV(hit, zone: zone, into: &out)
        writeDeletionCSV(hit, into: &out)
    }

    /// Appends `,hidden_for,deletion_evidence` (the ``deletionColumns``, each empty when there is none).
    public static func writeDeletionCSV(_ hit: SearchHit, spreadsheet: Bool = false, into out: inout [UInt8]) {
        let message = hit.message
        out.append(UInt8(ascii: ","))
        if !message.hiddenFor.isEmpty {
            appendCSVField(
                String(decoding: hiddenForJSON(message.hiddenFor).serialized(), as: UTF8.self),
                spreadsheet: spreadsheet, into: &out)
        }
        out.append(UInt8(ascii: ","))
        if let evidence = message.deletionEvidence { appendCSVField(evidence, spreadsheet: spreadsheet, into: &out) }
    }

    /// Appends the ``baseColumns`` of the message (no line ending); `spreadsheet` neutralises formula cells
    /// (``appendCSVField(_:spreadsheet:into:)``).
    public static func writeBaseCSV(
        _ hit: SearchHit, zone: TimeZone? = nil, spreadsheet: Bool = false, into out: inout [UInt8]
    ) {
        let message = hit.message
        var first = true
        func separate() {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
        }
        func field(_ text: String?) {
            separate()
            if let text { appendCSVField(text, spreadsheet: spreadsheet, into: &out) }
        }
        // Numbers and UTC times are written as bytes, no `String` made (four times and four numbers a row).
        // Neither needs quotes; only a negative number or a year before 0 begins with a formula trigger, and
        // those go through the field writer.
        func number(_ value: Int?) {
            guard let value, value >= 0 || !spreadsheet else { return field(value.map(String.init)) }
            separate()
            JSONObjectWriter.appendDecimal(value, into: &out)
        }
        func time(_ seconds: Int?) {
            guard let seconds, zone == nil, seconds >= ISO8601.firstFourDigitYear || !spreadsheet else {
                return field(seconds.map { seconds in zone.map { iso(seconds, $0) } ?? ISO8601.format(seconds) })
            }
            separate()
            ISO8601.write(seconds, into: &out)
        }
        field(message.id)
        number(message.dateSent)
        time(message.dateSent)
        field(message.dialogID)
        field(hit.dialogName)
        number(hit.dialogType)
        number(message.senderID)
        field(hit.senderLogin)
        field(hit.senderName)
        number(message.recipientID)
        field(hit.recipientLogin)
        field(hit.recipientName)
        field(message.text)
        field(message.attachmentsJSON)
        field(message.customJSON)
        number(message.edited)
        time(message.deletedAt)
        time(message.updatedAt)
        time(message.firstSeenAt)
        time(message.lastSeenAt)
    }

    /// An instant in ISO 8601 with `zone`'s offset at that instant.
    public static func iso(_ seconds: Int, _ zone: TimeZone) -> String {
        ISO8601.format(seconds, offset: zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(seconds))))
    }

    /// The CSV header line (no line ending).
    public static var csvHeader: String { csvColumns.joined(separator: ",") }

    /// The first bytes that make a spreadsheet read a cell as a formula (OWASP's CSV injection list:
    /// `=`, `+`, `-`, `@`, tab, carriage return).
    static let formulaTriggers: Set<UInt8> = [
        UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 9, 13,
    ]

    /// Appends a field, quoted when it holds a comma, a quote, CR or LF, with its quotes doubled (RFC 4180).
    ///
    /// With `spreadsheet`, a field that begins with a formula trigger (``formulaTriggers``) is written as
    /// text a spreadsheet will not run: a `'` before it, and the whole cell quoted (OWASP's rule). That
    /// changes the data (`-5` reads `'-5`), which is why only `--excel` does it and plain CSV stays lossless.
    public static func appendCSVField(_ text: String, spreadsheet: Bool = false, into out: inout [UInt8]) {
        var text = text
        // The text's bytes in place (`withUTF8`): scanning a `String.UTF8View` a byte at a time was a third of
        // a CSV field's cost.
        text.withUTF8 { bytes in
            let neutralise = spreadsheet && bytes.first.map(formulaTriggers.contains) == true
            let needsQuotes =
                neutralise
                || bytes.contains { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 10 || $0 == 13 }
            guard needsQuotes else { return out.append(contentsOf: bytes) }
            out.append(UInt8(ascii: "\""))
            if neutralise { out.append(UInt8(ascii: "'")) }
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: "\"") {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...index]))  // through the quote
                start = index  // the quote again, doubled
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
            out.append(UInt8(ascii: "\""))
        }
    }
}
