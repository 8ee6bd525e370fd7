/// Records to restore into an archive, all or nothing (see ``ArchiveWriter/importRecords(_:)`` and ``ImportSession``).
public struct ImportBatch: Sendable {
    public var users: [ArchivedUser] = []
    public var dialogs: [ArchivedDialog] = []
    public var membership: [MembershipPeriod] = []
    /// Messages with their derived columns (``ImportedMessage``).
    public var messages: [ImportedMessage] = []
    public var revisions: [MessageRevision] = []
    /// What the bundle says of the files the messages and revisions attach (not counted as records).
    public var files: [ImportedFile] = []

    public init() {}

    /// How many records the batch holds.
    public var count: Int { users.count + dialogs.count + membership.count + messages.count + revisions.count }
}
