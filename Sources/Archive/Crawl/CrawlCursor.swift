/// Where a dialog's crawl stands, moved in the same transaction as the page it describes.
///
/// `date_sent` has whole-second resolution and many messages can share a second, so the watermark
/// is inclusive: the next run asks for `date_sent[gte]=dateSent` and skips ``idsAtDateSent``.
/// ``checkedUpdatedAt`` is the `updated_at` bound up to which edits have been fetched.
public struct CrawlCursor: Sendable, Hashable {
    /// The newest `date_sent` archived for the dialog; `nil` before its first message.
    public var dateSent: Int?
    /// The ids archived whose `date_sent` equals ``dateSent``.
    public var idsAtDateSent: Set<String>
    /// The `updated_at` up to which changed messages have been fetched; `nil` before the first check.
    public var checkedUpdatedAt: Int?

    public init(dateSent: Int? = nil, idsAtDateSent: Set<String> = [], checkedUpdatedAt: Int? = nil) {
        self.dateSent = dateSent
        self.idsAtDateSent = idsAtDateSent
        self.checkedUpdatedAt = checkedUpdatedAt
    }
}
