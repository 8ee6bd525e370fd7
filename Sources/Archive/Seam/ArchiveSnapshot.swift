import QueryLanguage

/// A view of an archive in which every read sees the same state: what an export reads its files from, so
/// that messages, revisions, dialogs, users and membership agree with each other while crawls go on.
///
/// Obtained from ``ArchiveReader/withSnapshot(_:)`` and valid only inside it. Records come as async
/// streams of batches in a stable order, read through one cursor each, so an export runs in constant
/// memory and the same archive always gives the same sequence. Read one stream to its end (or stop
/// reading and leave the snapshot) before starting the next.
public protocol ArchiveSnapshot: Sendable {
    /// The archive's id and creation time.
    func identity() async throws -> ArchiveIdentity

    /// Messages matching `query` (every message when `nil`), with names, in `(dialog_id, date_sent, id)`
    /// order, each batch with the recorded files its messages' attachments name.
    ///
    /// `raw: false` leaves each message's ``ArchivedMessage/raw`` empty (`""`) and does not read it: the
    /// server's record is ten times the size of a message's text, and exports without it (JSON Lines without
    /// `--raw`, CSV) spent a fifth of their reading thread decoding it.
    ///
    /// The stream throws ``QueryLanguage/QueryError`` when the query names a login no archived user has.
    func messages(matching query: Query?, raw: Bool) -> AsyncThrowingStream<ExportBatch<SearchHit>, any Error>
    /// Earlier versions of the messages matching `query`, by message id and revision, with their files.
    func revisions(matching query: Query?) -> AsyncThrowingStream<ExportBatch<MessageRevision>, any Error>
    /// Dialogs by id: all of them when `ids` is `nil`, else those listed (unknown ids skipped).
    func dialogs(ids: [String]?) -> AsyncThrowingStream<[ArchivedDialog], any Error>
    /// Users by id: all of them when `ids` is `nil`, else those listed (unknown ids skipped).
    func users(ids: [Int]?) -> AsyncThrowingStream<[ArchivedUser], any Error>
    /// Membership periods of dialogs (all when `dialogIDs` is `nil`), by dialog, join time and user.
    func memberships(dialogIDs: [String]?) -> AsyncThrowingStream<[MembershipPeriod], any Error>
}

/// Records read together from a snapshot, with the files their attachments name as the snapshot records
/// them (by attachment key; a key the archive does not record is absent).
public struct ExportBatch<Item: Sendable>: Sendable {
    public var items: [Item]
    public var files: [String: ArchivedFile]
    /// Each item's attachment keys (``AttachmentKey/keys(ofAttachmentsJSON:)`` of its `attachments`), by item:
    /// the snapshot works them out to look the files up, and hands them on so that no consumer parses the
    /// attachments a second time.
    public var attachmentKeys: [[String]]

    public init(items: [Item], files: [String: ArchivedFile] = [:], attachmentKeys: [[String]]) {
        precondition(attachmentKeys.count == items.count, "one list of attachment keys per item")
        self.items = items
        self.files = files
        self.attachmentKeys = attachmentKeys
    }
}

extension ArchiveSnapshot {
    /// Messages matching `query` with every column, the server's record included.
    public func messages(matching query: Query?) -> AsyncThrowingStream<ExportBatch<SearchHit>, any Error> {
        messages(matching: query, raw: true)
    }
}
