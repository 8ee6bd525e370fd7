/// A QuickBlox user, the inner object of `{"user": {...}}`.
public struct User: QuickBloxRecord {
    public static let kind = "user"

    public var id: Int
    public var login: String?
    public var email: String?
    public var fullName: String?
    public var phone: String?
    /// Unix seconds.
    public var createdAt: Int?
    /// Unix seconds.
    public var updatedAt: Int?
    /// Unix seconds.
    public var lastRequestAt: Int?
    public var customData: String?
    /// Comma-separated tags, as QuickBlox stores them.
    public var userTags: String?
    /// Unmodelled keys (`website`, `external_user_id`, `facebook_id`, `blob_id`, ...).
    public var extra: [String: JSONValue]

    public init(
        id: Int, login: String?, email: String? = nil, fullName: String?, phone: String? = nil,
        createdAt: Int?, updatedAt: Int?, lastRequestAt: Int? = nil, customData: String? = nil,
        userTags: String? = nil, extra: [String: JSONValue] = [:]
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
        self.extra = extra
    }

    /// Reads either the bare user object or the `{"user": {...}}` wrapper.
    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        let inner = json["user"].flatMap { $0.objectValue != nil ? $0 : nil } ?? json
        var reader = try FieldReader(kind: Self.kind, json: inner)
        id = try reader.requiredInt("id")
        login = reader.string("login")
        email = reader.string("email")
        fullName = reader.string("full_name")
        phone = reader.string("phone")
        createdAt = reader.timestamp("created_at")
        updatedAt = reader.timestamp("updated_at")
        lastRequestAt = reader.timestamp("last_request_at")
        customData = reader.string("custom_data")
        userTags = reader.string("user_tags")
        extra = reader.extra
    }

    /// The bare user object (see ``wrapped`` for the `{"user": ...}` form the API sends).
    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.set("id", id)
        object.set("login", login)
        object.set("email", email)
        object.set("full_name", fullName)
        object.set("phone", phone)
        object.set("created_at", timestamp: createdAt)
        object.set("updated_at", timestamp: updatedAt)
        object.set("last_request_at", timestamp: lastRequestAt)
        object.set("custom_data", customData)
        object.set("user_tags", userTags)
        return object.json
    }

    /// `{"user": {...}}`, as in `GET /users/{id}.json` and each item of `GET /users.json`.
    public var wrapped: JSONValue { ["user": json] }
}
