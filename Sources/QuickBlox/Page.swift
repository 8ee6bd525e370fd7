/// One page of a QuickBlox list: `{"total_entries"?, "skip", "limit", "items": [...]}`.
///
/// Dialog lists carry `total_entries`; message lists do not. `limit` is the value the server
/// echoes, which may be lower than the one asked for: page by the number of items received.
public struct Page<Item: QuickBloxRecord>: Sendable, Hashable {
    public var totalEntries: Int?
    public var skip: Int
    public var limit: Int
    public var items: [Item]
    /// Each item exactly as the server sent it, for archiving.
    public var rawItems: [JSONValue]

    public init(totalEntries: Int? = nil, skip: Int, limit: Int, items: [Item]) {
        self.totalEntries = totalEntries
        self.skip = skip
        self.limit = limit
        self.items = items
        self.rawItems = items.map(\.json)
    }

    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        var reader = try FieldReader(kind: "\(Item.kind) list", json: json)
        guard let elements = reader.value("items")?.arrayValue else {
            throw QuickBloxDecodingError(
                kind: "\(Item.kind) list", field: "items", reason: "is missing or not an array")
        }
        var decoded: [Item] = []
        decoded.reserveCapacity(elements.count)
        for element in elements { decoded.append(try Item(json: element)) }
        totalEntries = reader.int("total_entries")
        skip = reader.int("skip") ?? 0
        limit = reader.int("limit") ?? elements.count
        items = decoded
        rawItems = elements
    }

    /// The envelope; `total_entries` only when known (dialog lists).
    public var json: JSONValue {
        var members: [String: JSONValue] = ["skip": .int(skip), "limit": .int(limit), "items": .array(rawItems)]
        if let totalEntries { members["total_entries"] = .int(totalEntries) }
        return .object(members)
    }
}

/// One page of `GET /users.json`: `{"current_page", "per_page", "total_entries", "items": [{"user": {...}}]}`.
public struct UserPage: Sendable, Hashable {
    public var currentPage: Int
    public var perPage: Int
    public var totalEntries: Int
    public var items: [User]
    public var rawItems: [JSONValue]

    public init(currentPage: Int, perPage: Int, totalEntries: Int, items: [User]) {
        self.currentPage = currentPage
        self.perPage = perPage
        self.totalEntries = totalEntries
        self.items = items
        self.rawItems = items.map(\.json)
    }

    public init(json: JSONValue) throws(QuickBloxDecodingError) {
        var reader = try FieldReader(kind: "user list", json: json)
        guard let elements = reader.value("items")?.arrayValue else {
            throw QuickBloxDecodingError(kind: "user list", field: "items", reason: "is missing or not an array")
        }
        var decoded: [User] = []
        for element in elements { decoded.append(try User(json: element)) }
        currentPage = reader.int("current_page") ?? 1
        perPage = reader.int("per_page") ?? elements.count
        totalEntries = reader.int("total_entries") ?? decoded.count
        items = decoded
        rawItems = elements.map { $0["user"] ?? $0 }
    }

    public var json: JSONValue {
        [
            "current_page": .int(currentPage), "per_page": .int(perPage), "total_entries": .int(totalEntries),
            "items": .array(rawItems.map { ["user": $0] }),
        ]
    }
}

/// The answer to a list request with `count=1`.
public enum CountResponse {
    /// Reads `{"items":{"count":N}}` (documented), and defensively `{"count":N}` or `total_entries`.
    public static func count(from json: JSONValue) throws(QuickBloxDecodingError) -> Int {
        if let count = json["items"]?["count"]?.lenientInt { return count }
        if let count = json["count"]?.lenientInt { return count }
        if let count = json["total_entries"]?.lenientInt { return count }
        throw QuickBloxDecodingError(kind: "count", reason: "has neither items.count, count nor total_entries")
    }

    /// `{"items":{"count":N}}`.
    public static func json(count: Int) -> JSONValue {
        ["items": ["count": .int(count)]]
    }
}
