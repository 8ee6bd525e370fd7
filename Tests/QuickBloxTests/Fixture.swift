import Foundation
import QuickBlox
import Testing

/// Loads the JSON fixtures under `Fixtures/`, copied verbatim from docs/quickblox-rest reference shapes.
enum Fixture {
    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "fixture \(name).json is not in the test bundle" }
    }

    static func data(_ name: String) throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures") else {
            throw Missing(name: name)
        }
        return try Data(contentsOf: url)
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try data(name), as: UTF8.self)
    }

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: data(name))
    }

    /// The `index`-th element of the fixture's `items` array.
    static func item(_ name: String, _ index: Int) throws -> JSONValue {
        let items = try #require(json(name)["items"]?.arrayValue)
        try #require(items.indices.contains(index))
        return items[index]
    }
}

extension JSONValue {
    /// The object's member names (empty for non-objects).
    var keys: Set<String> { Set(objectValue.map { Array($0.keys) } ?? []) }
}
