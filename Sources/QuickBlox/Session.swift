/// An API session, the inner object of `{"session": {...}}`.
///
/// The token is opaque: 40 hex characters on old servers, a JWT on newer ones.
public struct Session: QuickBloxRecord {
    public static let kind = "session"

    public var id: Int
    public var applicationID: Int
    /// 0 for an application session.
    public var userID: Int
    public var token: String
    public var nonce: Int?
    /// The request timestamp, unix seconds.
    public var ts: Int?
    /// Unix seconds.
    public var createdAt: Int?
    /// Unix seconds.
    public var updatedAt: Int?
    /// Unmodelled keys (`_id`, `device_id`, ...).
    public var extra: [String: JSONValue]

    public init(
        id: Int, applicationID: Int, userID: Int, token: String, nonce: Int?, ts: Int?, createdAt: Int?,
        updatedAt: Int?, extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.applicationID = applicationID
        self.userID = userID
        self.token = token
        self.nonce = nonce
        self.ts = ts
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.extra = extra
    }

    /// Reads either the bare session object or the `{"session": {...}}` wrapper.
    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        let inner = json["session"].flatMap { $0.objectValue != nil ? $0 : nil } ?? json
        var reader = try FieldReader(kind: Self.kind, json: inner)
        id = try reader.requiredInt("id")
        applicationID = try reader.requiredInt("application_id")
        userID = reader.int("user_id") ?? 0
        token = try reader.requiredString("token")
        nonce = reader.int("nonce")
        ts = reader.int("ts")
        createdAt = reader.timestamp("created_at")
        updatedAt = reader.timestamp("updated_at")
        extra = reader.extra
    }

    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.set("id", id)
        object.set("application_id", applicationID)
        object.set("user_id", userID)
        object.set("token", token)
        object.set("nonce", nonce)
        object.set("ts", ts)
        object.set("created_at", timestamp: createdAt)
        object.set("updated_at", timestamp: updatedAt)
        return object.json
    }

    /// Whether this session acts as a user (chat endpoints need one).
    public var isUserSession: Bool { userID != 0 }
}
