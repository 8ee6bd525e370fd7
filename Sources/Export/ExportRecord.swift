import Archive
import Search

/// A message as exports write it: the fields of ``Search/MessageRecord`` (shared with search output), and
/// the files its attachments name.
public enum ExportRecord {
    /// The export CSV's columns, in order: search's first ones, `attachment_files`, then the per-user
    /// deletion columns (new columns are only ever appended).
    public static let csvColumns = MessageRecord.baseColumns + ["attachment_files"] + MessageRecord.deletionColumns

    /// The CSV header line (no line ending).
    public static var csvHeader: String { csvColumns.joined(separator: ",") }

    /// The message as one CSV record of ``csvColumns`` (no line ending): `attachment_files` holds one word
    /// per file, separated by spaces (see ``FileReference/csvToken``), and is empty without files.
    static func writeCSV(_ hit: SearchHit, files: [FileReference], spreadsheet: Bool = false, into out: inout [UInt8]) {
        MessageRecord.writeBaseCSV(hit, spreadsheet: spreadsheet, into: &out)
        out.append(UInt8(ascii: ","))
        if !files.isEmpty {
            MessageRecord.appendCSVField(
                files.map(\.csvToken).joined(separator: " "), spreadsheet: spreadsheet, into: &out)
        }
        MessageRecord.writeDeletionCSV(hit, spreadsheet: spreadsheet, into: &out)
    }
}
