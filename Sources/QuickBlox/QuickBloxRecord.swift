import Foundation

/// A record of the QuickBlox REST API, decoded leniently from JSON and written back in QuickBlox's shape.
///
/// Each record keeps the keys it does not model in `extra`, so `Record(json: j).json` loses
/// nothing the server sent (custom message parameters, dialog extensions, new API fields).
public protocol QuickBloxRecord: Sendable, Hashable, Codable {
    /// The record kind used in error messages (`"message"`, `"dialog"`, ...).
    static var kind: String { get }
    /// Decodes a record, accepting every variant the real API is known to send.
    init(json: JSONValue) throws(QuickBloxDecodingError)
    /// The record in QuickBlox's JSON shape; unmodelled keys from ``QuickBloxRecord/init(json:)`` included.
    var json: JSONValue { get }
}

extension QuickBloxRecord {
    public init(from decoder: any Decoder) throws {
        try self.init(json: JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try json.encode(to: encoder)
    }

    /// Decodes a record from the bytes of one JSON object.
    public init(jsonData data: [UInt8]) throws {
        try self.init(json: JSONValue(parsing: data))
    }
}

/// A record that could not be read: which kind, which field, and why.
public struct QuickBloxDecodingError: Error, LocalizedError, Hashable, Sendable {
    public var kind: String
    public var field: String?
    public var reason: String

    public init(kind: String, field: String? = nil, reason: String) {
        self.kind = kind
        self.field = field
        self.reason = reason
    }

    public var errorDescription: String? {
        if let field { return "QuickBlox \(kind): field `\(field)` \(reason)" }
        return "QuickBlox \(kind): \(reason)"
    }
}

/// Reads the members of one JSON object and remembers which ones a model consumed.
struct FieldReader {
    let kind: String
    let members: [String: JSONValue]
    private(set) var consumed: Set<String> = []

    init(kind: String, json: JSONValue) throws(QuickBloxDecodingError) {
        guard let members = json.objectValue else {
            throw QuickBloxDecodingError(kind: kind, reason: "is not a JSON object")
        }
        self.kind = kind
        self.members = members
    }

    /// The value of `key`, treating JSON `null` as absent.
    mutating func value(_ key: String) -> JSONValue? {
        consumed.insert(key)
        guard let value = members[key], !value.isNull else { return nil }
        return value
    }

    /// The value of a key the model writes only when present: a JSON `null` is left unconsumed, so it
    /// stays in ``extra`` and the record writes it back as `null` (the round trip keeps `"read": null`).
    mutating func optional(_ key: String) -> JSONValue? {
        guard let value = members[key], !value.isNull else { return nil }
        consumed.insert(key)
        return value
    }

    mutating func string(_ key: String) -> String? { value(key)?.lenientString }
    mutating func int(_ key: String) -> Int? { value(key)?.lenientInt }
    mutating func ints(_ key: String) -> [Int] { value(key)?.lenientIntArray ?? [] }

    /// A timestamp given as ISO-8601 text or as unix seconds.
    mutating func timestamp(_ key: String) -> Int? {
        guard let value = value(key) else { return nil }
        if case .string(let text) = value, let seconds = ISO8601.parse(text) { return seconds }
        return value.lenientInt
    }

    mutating func requiredString(_ key: String) throws(QuickBloxDecodingError) -> String {
        guard let text = string(key), !text.isEmpty else {
            throw QuickBloxDecodingError(kind: kind, field: key, reason: "is missing or empty")
        }
        return text
    }

    mutating func requiredInt(_ key: String) throws(QuickBloxDecodingError) -> Int {
        guard let number = int(key) else {
            throw QuickBloxDecodingError(kind: kind, field: key, reason: "is missing or not a number")
        }
        return number
    }

    /// Every member no model field consumed, `null`s included.
    var extra: [String: JSONValue] {
        members.filter { !consumed.contains($0.key) }
    }
}

/// Builds a QuickBlox JSON object: modelled fields over the record's unmodelled extras.
struct ObjectBuilder {
    var members: [String: JSONValue]

    init(extra: [String: JSONValue]) { members = extra }

    mutating func set(_ key: String, _ value: JSONValue) { members[key] = value }
    mutating func set(_ key: String, _ value: String?) { members[key] = value.map(JSONValue.string) ?? .null }
    mutating func set(_ key: String, _ value: Int?) { members[key] = value.map(JSONValue.int) ?? .null }
    mutating func set(_ key: String, ints: [Int]) { members[key] = .array(ints.map(JSONValue.int)) }
    mutating func set(_ key: String, timestamp: Int?) {
        members[key] = timestamp.map { .string(ISO8601.format($0)) } ?? .null
    }
    /// Sets `key` only when there is a value, so absent optional fields stay absent.
    mutating func setIfPresent(_ key: String, _ value: String?) { if let value { members[key] = .string(value) } }
    mutating func setIfPresent(_ key: String, _ value: Int?) { if let value { members[key] = .int(value) } }

    var json: JSONValue { .object(members) }
}
