/// A file or location attached to a message: `{type, id, uid, url, name, size, ...}`.
///
/// `id` arrives as a string in the docs and as a number from some SDKs; it is kept as text.
public struct Attachment: QuickBloxRecord {
    public static let kind = "attachment"

    /// `image`, `video`, `audio`, `file`, or an application's own type.
    public var type: String?
    /// The Content-module blob id, as text.
    public var id: String?
    /// The blob's uid, used in download URLs.
    public var uid: String?
    public var url: String?
    public var name: String?
    public var size: Int?
    /// Keys QuickBlox does not define (custom attachment parameters, `data`, `content-type`, ...).
    public var extra: [String: JSONValue]

    public init(
        type: String?, id: String? = nil, uid: String? = nil, url: String? = nil, name: String? = nil,
        size: Int? = nil, extra: [String: JSONValue] = [:]
    ) {
        self.type = type
        self.id = id
        self.uid = uid
        self.url = url
        self.name = name
        self.size = size
        self.extra = extra
    }

    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        var reader = try FieldReader(kind: Self.kind, json: json)
        type = reader.optional("type")?.lenientString
        id = reader.optional("id")?.lenientString
        uid = reader.optional("uid")?.lenientString
        url = reader.optional("url")?.lenientString
        name = reader.optional("name")?.lenientString
        size = reader.optional("size")?.lenientInt
        extra = reader.extra
    }

    public var json: JSONValue {
        var object = ObjectBuilder(extra: extra)
        object.setIfPresent("type", type)
        object.setIfPresent("id", id)
        object.setIfPresent("uid", uid)
        object.setIfPresent("url", url)
        object.setIfPresent("name", name)
        object.setIfPresent("size", size)
        return object.json
    }
}
