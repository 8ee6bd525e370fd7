/// A strict RFC 8259 parser from UTF-8 bytes straight to ``JSONValue``.
///
/// Written by hand because decoding a recursive enum through `Codable` was the crawler's
/// bottleneck: Foundation's `JSONDecoder` builds a coding path and a container for every value and
/// tries each case in turn, and a profile of a 200k-message crawl spent 37 % of the crawler's CPU
/// (more than SQLite with both FTS5 indexes) there. None of the listed packages offers a JSON
/// DOM parser. This one reads the bytes once, keeps integers apart from floating-point numbers
/// exactly as ``JSONValue`` requires, and rejects everything `JSONDecoder` rejects that matters to
/// the archive: malformed syntax, invalid UTF-8, lone surrogate escapes, trailing bytes, and nesting
/// deeper than ``maximumDepth``.
struct JSONParser: ~Copyable {
    /// Deeper nesting is refused rather than risking the stack on hostile input (`JSONDecoder` allows 512).
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0
    /// The members of the objects being parsed, innermost last: an object's are collected here and made one
    /// dictionary of the right capacity at its end, where adding them one by one grew (and rehashed) it a
    /// few times for a record of twenty members.
    private var members: [(String, JSONValue)] = []

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON document that makes up the whole of `bytes` (white space around it allowed).
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.position == bytes.count else { throw parser.error("unexpected bytes after the JSON value") }
        return value
    }

    private func error(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(offset: offset ?? position, reason: reason)
    }

    private var current: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character '\(UnicodeScalar(byte))'")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard position + count <= bytes.count else { throw error("unexpected end of input") }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: count)
        for index in 0..<count where bytes[position + index] != expected[index] {
            throw error("invalid literal")
        }
        position += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nesting deeper than \(Self.maximumDepth) levels") }
        position += 1
        skipWhitespace()
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        if current == UInt8(ascii: "}") {
            position += 1
            return .object([:])
        }
        let base = members.count
        defer { members.removeSubrange(base...) }
        while true {
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after an object key") }
            position += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "}"):
                position += 1
                // A repeated key keeps the last value, as JSONDecoder does.
                return .object(Dictionary(members[base...], uniquingKeysWith: { _, last in last }))
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                position += 1
                skipWhitespace()
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    /// Reads a string literal; the common case without escapes is one validated copy of the bytes.
    private mutating func parseString() throws(JSONParseError) -> String {
        position += 1  // the opening quote
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = try makeString(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            position += 1
        }
        var buffer = Array(bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return try buffer.withUnsafeBufferPointer { (view) throws(JSONParseError) in try makeString(view) }
            case UInt8(ascii: "\\"):
                position += 1
                try appendEscape(to: &buffer)
            case 0x00..<0x20:
                throw error("unescaped control character in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw error("unterminated string")
    }

    /// The string of `utf8`, refused when it is not valid UTF-8. Through `UTF8Span`: `String(validating:as:)`,
    /// generic over the encoding, looked up its type metadata on every call, and took 8 % of an import's CPU
    /// (about 190 ns a string against 85; docs/performance.md, *the bundle's JSON parsed with less work*).
    private func makeString(_ utf8: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> String {
        guard let span = try? UTF8Span(validating: utf8.span) else { throw error("invalid UTF-8 in a string") }
        return String(copying: span)
    }

    private mutating func appendEscape(to buffer: inout [UInt8]) throws(JSONParseError) {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(byte)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try readHex4())
            if (0xD800...0xDBFF).contains(scalar) {
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("a high surrogate escape without its low surrogate") }
                position += 2
                let low = UInt32(try readHex4())
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw error("a high surrogate escape without its low surrogate")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("a low surrogate escape without its high surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
            buffer.append(contentsOf: Character(unicode).utf8)
        default:
            throw error("invalid escape '\\\(UnicodeScalar(byte))'")
        }
    }

    private mutating func readHex4() throws(JSONParseError) -> UInt16 {
        guard position + 4 <= bytes.count else { throw error("unterminated unicode escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in a unicode escape")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }

    /// Reads a number: `.int` when it has no fraction or exponent and fits in `Int`, `.double` otherwise.
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = position
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        let digitsStart = position
        var magnitude: UInt64 = 0
        var overflow = false
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            overflow = overflow || o1 || o2
            magnitude = sum
            position += 1
        }
        let digitCount = position - digitsStart
        guard digitCount > 0 else { throw error("a number without digits") }
        if digitCount > 1, bytes[digitsStart] == UInt8(ascii: "0") {
            throw error("a number with a leading zero", at: digitsStart)
        }
        var isInteger = true
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard try skipDigits() > 0 else { throw error("a number without digits after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard try skipDigits() > 0 else { throw error("a number without digits in its exponent") }
        }
        if isInteger, !overflow {
            if negative, magnitude <= UInt64(Int.max) + 1 {
                return .int(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude))
            }
            if !negative, magnitude <= UInt64(Int.max) { return .int(Int(magnitude)) }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("a number out of range") }
        return .double(value)
    }

    private mutating func skipDigits() throws(JSONParseError) -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }
}

/// Bytes that are not one well-formed JSON document: where (a byte offset) and why.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The offset of the first byte that could not be read, from the start of the document.
    public var offset: Int
    public var reason: String

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}
