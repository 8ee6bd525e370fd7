/// One row of `crawl_state`: a dialog's cursor and the outcome of its last crawl.
public struct CrawlState: Sendable, Hashable {
    public var dialogID: String
    public var cursor: CrawlCursor
    /// When the dialog was last crawled to the end without error (unix seconds).
    public var lastSuccessAt: Int?
    /// The error of the last failed crawl of the dialog, cleared by the next success.
    public var lastError: String?
    public var lastErrorAt: Int?
    /// When the row last changed (unix seconds).
    public var changedAt: Int
    /// When a reconcile last counted the dialog (`server_counted_at`); `nil` before the first.
    public var reconciledAt: Int?

    public init(
        dialogID: String, cursor: CrawlCursor, lastSuccessAt: Int?, lastError: String?, lastErrorAt: Int?,
        changedAt: Int, reconciledAt: Int? = nil
    ) {
        self.dialogID = dialogID
        self.cursor = cursor
        self.lastSuccessAt = lastSuccessAt
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
        self.changedAt = changedAt
        self.reconciledAt = reconciledAt
    }
}
