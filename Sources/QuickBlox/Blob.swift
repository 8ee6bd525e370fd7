/// A Content-module file (blob), the inner object of `{"blob": {...}}` from `GET /blobs/{id}.json`.
///
/// Fields as QuickBlox documents them (List Files, Create File): `id` (integer), `uid` (used in
/// download URLs), `content_type`, `name`, `size` (`null` until the upload completes),
/// `created_at`, `updated_at`, `blob_status` (`"complete"` or `null`), `set_completed_at` and
/// `public`. Anything else the server sends (`account_id`, `app_id`, ...) is kept in `extra`.
public struct Blob: QuickBloxRecord {
    public static let kind = "blob"

    public var id: Int
    public var uid: String
    public var name: String?
    public var contentType: String?
    /// Bytes; `nil` for a blob whose upload never completed.
    public var size: Int?
    /// Whether the file downloads without a session token.
    public var isPublic: Bool
    /// `"complete"` once the upload was declared done, else `nil`.
    public var blobStatus: String?
    /// Unix seconds.
    public var createdAt: Int?
    /// Unix seconds.
    public var updatedAt: Int?
    /// Unix seconds: when the upload was declared complete.
    public var setCompletedAt: Int?
    /// Unmodelled keys.
    public var extra: [String: JSONValue]

    public init(
        id: Int, uid: String, name: String?, contentType: String?, size: Int?, isPublic: Bool = false,
        blobStatus: String? = "complete", createdAt: Int?, updatedAt: Int?, setCompletedAt: Int?,
        extra: [String: JSONValue] = [:]
    ) {
        self.id = id
        self.uid = uid
        self.name = name
        self.contentType = contentType
        self.size = size
        self.isPublic = isPublic
        self.blobStatus = blobStatus
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.setCompletedAt = setCompletedAt
        self.extra = extra
    }

    /// Reads either the bare blob object or the `{"blob": {...}}` wrapper.
    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        let inner = json["blob"].flatMap { $0.objectValue != nil ? $0 : nil } ?? json
        var reader = try FieldReader(kind: Self.kind, json: inner)
        id = try reader.requiredInt("id")
        uid = try reader.requiredString("uid")
        name = reader.string("name")
        contentType = reader.string("content_type")
        size = reader.int("size")
        switch reader.value("public") {
        case .bool(let flag)?: isPublic = flag
        case let other?: isPublic = other.lenientString == "true" || other.lenientInt == 1
        case nil: isPublic = false
        }
        blobStatus = reader.string("blob_status")
        createdAt = reader.timestamp("created_at")
        updatedAt = reader.timestamp("updated_at")
        setCompletedAt = reader.timestamp("set_completed_at")
        extra = reader.extra
    }

    /// The bare blob object (see ``wrapped`` for the `{"blob": ...}` form the API sends).
    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.set("id", id)
        object.set("uid", uid)
        object.set("name", name)
        object.set("content_type", contentType)
        object.set("size", size)
        object.set("public", .bool(isPublic))
        object.set("blob_status", blobStatus)
        object.set("created_at", timestamp: createdAt)
        object.set("updated_at", timestamp: updatedAt)
        object.set("set_completed_at", timestamp: setCompletedAt)
        return object.json
    }

    /// `{"blob": {...}}`, as `GET /blobs/{id}.json` answers.
    public var wrapped: JSONValue { ["blob": json] }
}
