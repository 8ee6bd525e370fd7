/// The word index's key of a message: its second, then its row, in one integer — so that the index lists a
/// word's messages in date order, and the newest page of a common word is read from its end, without
/// fetching every hit.
///
/// `messages.date_key` is a virtual generated column of this expression (no storage), with a unique index; the
/// word index's external content is keyed by it (`content_rowid='date_key'`). The second is clamped to
/// 1970…2514 (a message dated outside sorts at that end: the search's own order on `date_sent` puts it right),
/// and the row takes the low 29 bits of `rowid`: unique as long as the archive holds fewer than 536,870,912
/// messages (past that, the unique index refuses an insert rather than confuse two messages).
enum DateKey {
    static let rowBits = 29
    static let rowMask: Int64 = (1 << 29) - 1
    static let lastSecond = (1 << 34) - 1

    /// The key of the message in row `rowID` sent at `dateSent`.
    static func of(dateSent: Int, rowID: Int64) -> Int64 {
        floor(dateSent) | (rowID & rowMask)
    }

    /// The first key of the second of `dateSent`.
    static func floor(_ dateSent: Int) -> Int64 {
        Int64(min(max(dateSent, 0), lastSecond)) << rowBits
    }

    /// The column's expression, the same as ``of(dateSent:rowID:)``.
    static let expression = "((max(min(date_sent, \(lastSecond)), 0) << \(rowBits)) | (rowid & \(rowMask)))"
}
