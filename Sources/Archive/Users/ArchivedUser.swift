/// A user as the archive holds it: typed columns, the server's record, and when the archive saw it.
public struct ArchivedUser: Sendable, Hashable, Identifiable {
    public var id: Int
    public var login: String?
    public var email: String?
    public var fullName: String?
    public var phone: String?
    public var createdAt: Int?
    public var updatedAt: Int?
    public var lastRequestAt: Int?
    public var customData: String?
    public var userTags: String?
    /// The user as the server last sent it (canonical JSON).
    public var raw: String
    public var firstSeenAt: Int
    public var lastSeenAt: Int

    public init(
        id: Int, login: String?, email: String?, fullName: String?, phone: String?, createdAt: Int?,
        updatedAt: Int?, lastRequestAt: Int?, customData: String?, userTags: String?, raw: String, firstSeenAt: Int,
        lastSeenAt: Int
    ) {
        self.id = id
        self.login = login
        self.email = email
        self.fullName = fullName
        self.phone = phone
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastRequestAt = lastRequestAt
        self.customData = customData
        self.userTags = userTags
        self.raw = raw
        self.firstSeenAt = firstSeenAt
        self.lastSeenAt = lastSeenAt
    }

    /// The user as a person reads it: full name, else login, else `user N`.
    public var label: String { fullName ?? login ?? "user \(id)" }
}
