import Foundation
import Hummingbird
import QuickBlox

/// The parameters of one request: query string plus a form or JSON body.
///
/// `pairs` keeps the flattened, decoded `name=value` strings in order (what a signature is computed
/// over and what filters are read from); `object` is the same data structured (`user[login]`
/// becomes `{"user":{"login":...}}`, `attachments[0][type]` an array), so handlers read one shape
/// whichever encoding the client chose.
struct RequestParameters: Sendable {
    var pairs: [(String, String)]
    var object: [String: JSONValue]
    /// The query-string pairs alone (filters come from these).
    var queryPairs: [(String, String)]

    static let maxBodyBytes = 8 * 1024 * 1024

    static func read(_ request: Request) async throws -> RequestParameters {
        let queryPairs = QueryString.parse(request.uri.query ?? "")
        var pairs = queryPairs
        var object = unflatten(queryPairs).objectValue ?? [:]
        var request = request
        let body = try await request.collectBody(upTo: maxBodyBytes)
        if body.readableBytes > 0 {
            let bytes = Data(body.readableBytesView)
            let type = request.headers[.contentType] ?? ""
            if type.contains("json") || bytes.first == UInt8(ascii: "{") {
                guard let json = try? JSONValue(parsing: bytes), let members = json.objectValue else {
                    throw EmulatorError.badRequest("Request body is not a JSON object")
                }
                pairs += flatten(json)
                object.merge(members) { _, new in new }
            } else {
                let formPairs = QueryString.parse(String(decoding: bytes, as: UTF8.self))
                pairs += formPairs
                object.merge(unflatten(formPairs).objectValue ?? [:]) { _, new in new }
            }
        }
        return RequestParameters(pairs: pairs, object: object, queryPairs: queryPairs)
    }

    /// The last value given for `name` (flattened form, e.g. `user[login]`).
    func string(_ name: String) -> String? {
        pairs.last(where: { $0.0 == name })?.1
    }

    func value(_ name: String) -> JSONValue? { object[name] }

    /// `{"user":{"login":"a"}}` → `user[login]=a`; arrays as `key[]=v`; numbers in decimal.
    static func flatten(_ json: JSONValue, prefix: String = "") -> [(String, String)] {
        switch json {
        case .object(let members):
            return members.keys.sorted().flatMap { key in
                flatten(members[key]!, prefix: prefix.isEmpty ? key : "\(prefix)[\(key)]")
            }
        case .array(let elements):
            return elements.flatMap { flatten($0, prefix: "\(prefix)[]") }
        case .null:
            return [(prefix, "")]
        default:
            return [(prefix, json.lenientString ?? "")]
        }
    }

    /// Builds nested objects from bracketed names; `k[]` appends, and objects whose keys are all
    /// numbers (`attachments[0][type]`) become arrays.
    static func unflatten(_ pairs: [(String, String)]) -> JSONValue {
        var root: JSONValue = .object([:])
        for (name, value) in pairs {
            var path: [String] = []
            if let open = name.firstIndex(of: "["), name.hasSuffix("]"), open != name.startIndex {
                path.append(String(name[..<open]))
                let inner = name[name.index(after: open)..<name.index(before: name.endIndex)]
                path += inner.components(separatedBy: "][")
            } else {
                path = [name]
            }
            insert(.string(value), at: path[...], into: &root)
        }
        return arraysFromNumericObjects(root)
    }

    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into node: inout JSONValue) {
        guard let key = path.first else {
            node = value
            return
        }
        if key.isEmpty {
            var elements = node.arrayValue ?? []
            elements.append(.null)
            var last = JSONValue.null
            insert(value, at: path.dropFirst(), into: &last)
            elements[elements.count - 1] = last
            node = .array(elements)
            return
        }
        var members = node.objectValue ?? [:]
        var child = members[key] ?? .null
        insert(value, at: path.dropFirst(), into: &child)
        members[key] = child
        node = .object(members)
    }

    private static func arraysFromNumericObjects(_ node: JSONValue) -> JSONValue {
        switch node {
        case .object(let members):
            let converted = members.mapValues(arraysFromNumericObjects)
            if !converted.isEmpty, converted.keys.allSatisfy({ Int($0) != nil }) {
                return .array(converted.keys.sorted { Int($0)! < Int($1)! }.map { converted[$0]! })
            }
            return .object(converted)
        case .array(let elements):
            return .array(elements.map(arraysFromNumericObjects))
        default:
            return node
        }
    }
}
