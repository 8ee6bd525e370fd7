import Foundation

/// A JSON value as QuickBlox sent it.
///
/// QuickBlox records carry keys nobody documented (custom message parameters, dialog `data`,
/// attachment extras). Every model keeps those keys as `JSONValue`s so that nothing the server
/// sent is dropped, and the crawler stores the whole record as received.
///
/// Integers and floating-point numbers are kept apart so that ids and unix timestamps survive a
/// round trip unchanged.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral,
    ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSONValue {
    /// The members of an object, or `nil` for any other value.
    public var objectValue: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array, or `nil` for any other value.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// A string, or `nil` for any other value.
    public var stringValue: String? {
        if case .string(let string) = self { return string }
        return nil
    }

    /// Whether this is JSON `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object (`nil` when absent or when this is not an object).
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// An integer read leniently: an integer, a whole float, or a numeric string.
    ///
    /// QuickBlox's REST output sends integers, but its mobile SDKs have stored `date_sent` as floats
    /// and strings, and the Android SDK parses it as a double. The archive must not reject them.
    public var lenientInt: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.isFinite, value.rounded(.down) == value || abs(value) < 1e15 else { return nil }
            return Int(exactly: value.rounded(.down))
        case .string(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if let value = Int(trimmed) { return value }
            if let value = Double(trimmed), value.isFinite { return Int(exactly: value.rounded(.down)) }
            return nil
        case .bool(let flag): return flag ? 1 : 0
        default: return nil
        }
    }

    /// A string read leniently: strings as they are, numbers in their decimal form.
    public var lenientString: String? {
        switch self {
        case .string(let text): return text
        case .int(let value): return String(value)
        case .double(let value):
            if value.rounded(.down) == value, abs(value) < 1e15 { return String(Int(value)) }
            return String(value)
        case .bool(let flag): return flag ? "true" : "false"
        default: return nil
        }
    }

    /// An array of integers read leniently; `null` or absent gives an empty array.
    public var lenientIntArray: [Int] {
        switch self {
        case .array(let elements): return elements.compactMap(\.lenientInt)
        case .string(let text):
            // Some clients send id lists as "1,2,3".
            return text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        case .int(let value): return [value]
        default: return []
        }
    }
}
