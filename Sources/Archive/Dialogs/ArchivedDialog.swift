/// A dialog as the archive holds it: typed columns, the server's record, and what the archive observed.
public struct ArchivedDialog: Sendable, Hashable, Identifiable {
    public var id: String
    /// 1 public group, 2 group, 3 private.
    public var type: Int
    public var name: String?
    public var photo: String?
    public var userID: Int?
    /// JSON array of occupant ids, as last seen.
    public var occupantIDsJSON: String
    public var adminIDsJSON: String?
    public var createdAt: Int?
    public var updatedAt: Int?
    public var lastMessageDateSent: Int?
    public var xmppRoomJID: String?
    public var dataJSON: String?
    /// The dialog as the server last sent it (canonical JSON).
    public var raw: String
    public var firstSeenAt: Int
    public var lastSeenAt: Int
    /// When a reconcile found the dialog gone; `nil` while it exists.
    public var deletedAt: Int?
    /// Users whose own list no longer shows the dialog while others' still do, and since when (`dialog_hides`).
    public var hiddenFor: [HiddenFor]
    /// The views behind the tombstone (``DeletionEvidence`` as JSON); `nil` when not deleted or tombstoned before
    /// evidence was kept.
    public var deletionEvidence: String?

    public init(
        id: String, type: Int, name: String?, photo: String?, userID: Int?, occupantIDsJSON: String,
        adminIDsJSON: String?, createdAt: Int?, updatedAt: Int?, lastMessageDateSent: Int?, xmppRoomJID: String?,
        dataJSON: String?, raw: String, firstSeenAt: Int, lastSeenAt: Int, deletedAt: Int?,
        hiddenFor: [HiddenFor] = [], deletionEvidence: String? = nil
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.photo = photo
        self.userID = userID
        self.occupantIDsJSON = occupantIDsJSON
        self.adminIDsJSON = adminIDsJSON
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastMessageDateSent = lastMessageDateSent
        self.xmppRoomJID = xmppRoomJID
        self.dataJSON = dataJSON
        self.raw = raw
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
        self.deletedAt = deletedAt
        self.hiddenFor = hiddenFor
        self.deletionEvidence = deletionEvidence
    }
}
