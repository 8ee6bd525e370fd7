/// What a crawl does with the files attachments name.
public struct AttachmentOptions: Sendable, Hashable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Attachments stay only as the messages describe them; the file index is not kept this run.
        case none
        /// The archive lists every file attachments name (uid, id, url, declared name, type and size)
        /// without fetching it: no extra requests.
        case metadata
        /// ``metadata``, and every listed or failed file is downloaded into the content-addressed store.
        case files
    }

    public var mode: Mode = .metadata
    /// Files larger than this are recorded as too large, not stored.
    public var maxBytes = 4 << 30
    /// Fetch `url`s on hosts other than QuickBlox's API host (off: they are recorded as external).
    public var externalURLs = false
    /// Downloads at once, apart from message paging's concurrency.
    public var concurrency = 2
    /// Attempts per file per run (`nil`: the client's retry policy).
    public var attempts: Int?

    public init() {}
}
