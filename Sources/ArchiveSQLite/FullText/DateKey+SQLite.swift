import ArchiveSQL

extension DateKey {
    /// SQLite's expression of `messages.date_key`, the same as ``DateKey/of(dateSent:rowID:)``.
    static let expression = "((max(min(date_sent, \(lastSecond)), 0) << \(rowBits)) | (rowid & \(rowMask)))"
}
