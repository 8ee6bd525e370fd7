/// The word index's key of a message: its second, then its row, in one integer — so that the index lists a
/// word's messages in date order, and the newest page of a common word is read from its end, without
/// fetching every hit.
///
/// `messages.date_key` is a generated column of this expression, with a unique index: virtual in SQLite (the
/// word index's external content is keyed by it, `content_rowid='date_key'`), stored in PostgreSQL (the word
/// index's statements select it). The second is clamped to
/// 1970…2514 (a message dated outside sorts at that end: the search's own order on `date_sent` puts it right),
/// and the row takes the low 29 bits of `rowid`: unique as long as the archive holds fewer than 536,870,912
/// messages (past that, the unique index refuses an insert rather than confuse two messages).
public enum DateKey {
    public static let rowBits = 29
    public static let rowMask: Int64 = (1 << 29) - 1
    public static let lastSecond = (1 << 34) - 1

    /// The key of the message in row `rowID` sent at `dateSent`.
    public static func of(dateSent: Int, rowID: Int64) -> Int64 {
        floor(dateSent) | (rowID & rowMask)
    }

    /// The first key of the second of `dateSent`.
    public static func floor(_ dateSent: Int) -> Int64 {
        Int64(min(max(dateSent, 0), lastSecond)) << rowBits
    }

    /// The keys of the messages sent in the second of `dateSent` (``SQLDialect/dateKeys(sentAt:)``).
    public static func keys(sentAt dateSent: Int) -> Range<Int64> {
        keys(secondOf: floor(dateSent))
    }

    /// The keys of the second `key` belongs to (``SQLDialect/dateKeys(secondOf:)``).
    public static func keys(secondOf key: Int64) -> Range<Int64> {
        let first = (key >> rowBits) << rowBits
        return first..<(first + (1 << rowBits))
    }
}
