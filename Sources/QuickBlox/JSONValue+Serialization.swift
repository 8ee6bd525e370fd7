import Foundation

extension JSONValue {
    /// Parses one JSON document (UTF-8, white space around it allowed).
    ///
    /// Integers without a fraction or exponent that fit in `Int` become ``int(_:)``; every other
    /// number becomes ``double(_:)``.
    ///
    /// - Throws: ``JSONParseError`` with the byte offset when the bytes are not one JSON document.
    public init(parsing data: Data) throws(JSONParseError) {
        // `Data.withUnsafeBytes` rethrows untyped errors, so the typed result travels out in a `Result`.
        let result = data.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try JSONParser.parse(raw.bindMemory(to: UInt8.self)) }
        }
        self = try result.get()
    }

    /// Parses one JSON document from its UTF-8 bytes.
    public init(parsing bytes: [UInt8]) throws(JSONParseError) {
        self = try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) in try JSONParser.parse(buffer) }
    }

    /// Parses one JSON document from a string.
    public init(parsing text: String) throws(JSONParseError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Compact UTF-8 JSON with object keys in sorted order.
    ///
    /// Sorted keys make output deterministic (bundles, truth dumps) and match the order QuickBlox
    /// itself emits. Written by hand rather than through `JSONEncoder` because the emulator and the
    /// exporters serialize hundreds of thousands of records per second, and `JSONEncoder` neither
    /// keeps integers apart from floats for `Any`-like values nor reaches that rate on Linux.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(into: &out)
        return out
    }

    /// The same bytes as ``serialized()`` as a `String`.
    public var jsonString: String {
        String(decoding: serialized(), as: UTF8.self)
    }

    /// Appends the compact, key-sorted JSON text of this value to `out`.
    public func write(into out: inout [UInt8]) {
        switch self {
        case .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let flag):
            out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let value):
            out.append(contentsOf: String(value).utf8)
        case .double(let value):
            if value.isFinite {
                if value.rounded(.towardZero) == value, abs(value) < 1e15 {
                    out.append(contentsOf: String(Int(value)).utf8)
                    out.append(contentsOf: ".0".utf8)
                } else {
                    out.append(contentsOf: String(value).utf8)
                }
            } else {
                out.append(contentsOf: "null".utf8)
            }
        case .string(let text):
            JSONValue.writeString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, key) in members.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `text` as a JSON string literal (quotes, backslashes and control characters escaped).
    ///
    /// Copies runs of bytes that need no escape in one append: exports write millions of strings, and
    /// a byte-at-a-time append was over a quarter of an export's time.
    public static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index])) }
                start = index + 1
                out.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
                case 0x0A: out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(UInt8(ascii: "r"))
                case 0x09: out.append(UInt8(ascii: "t"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    out.append(UInt8(ascii: "u"))
                    out.append(UInt8(ascii: "0"))
                    out.append(UInt8(ascii: "0"))
                    out.append(hex.utf8Start[Int(byte >> 4)])
                    out.append(hex.utf8Start[Int(byte & 0x0F)])
                }
            }
            if start < bytes.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...])) }
        }
        out.append(UInt8(ascii: "\""))
    }
}
