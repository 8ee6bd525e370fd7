/// Writes one JSON object's members straight into a byte buffer, for hot paths.
///
/// The emulator serves hundreds of message pages a second and the exporters write millions of
/// records; building a `JSONValue` dictionary per record and sorting its keys dominated that cost.
/// Callers add members in ascending key order (the order ``JSONValue/serialized()`` uses), and
/// ``merge(_:upTo:)`` interleaves a record's unmodelled extras at their sorted places, so the bytes
/// equal `record.json.serialized()`. Member names are literals (`StaticString`) that need no escaping — no
/// quote, backslash or control character — and are copied as they are.
public struct JSONObjectWriter {
    private var first = true
    private var extras: [(key: String, value: JSONValue)]
    private var nextExtra = 0

    /// Starts an object in `out`; `extras` are written among the named members in key order.
    ///
    /// The writer keeps only its place; every call takes the buffer `inout`, so appending never copies it.
    public init(extras: [String: JSONValue] = [:], into out: inout [UInt8]) {
        self.extras = extras.isEmpty ? [] : extras.sorted { $0.key < $1.key }
        out.append(UInt8(ascii: "{"))
    }

    /// A member's name: its bytes as they are when no extras are to be placed among the members (exports' records:
    /// names scanned for characters to escape cost a tenth of a JSON Lines export's time); else compared with
    /// the extras' names, which are written first when they sort before it.
    private mutating func key(_ key: StaticString, _ out: inout [UInt8]) {
        guard nextExtra < extras.count else {
            separate(&out)
            out.append(UInt8(ascii: "\""))
            key.withUTF8Buffer { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
            return
        }
        self.key(key.description, &out)
    }

    private mutating func key(_ key: String, _ out: inout [UInt8]) {
        while nextExtra < extras.count, extras[nextExtra].key < key {
            let extra = extras[nextExtra]
            nextExtra += 1
            writeKey(extra.key, &out)
            extra.value.write(into: &out)
        }
        if nextExtra < extras.count, extras[nextExtra].key == key { nextExtra += 1 }  // the modelled field wins
        writeKey(key, &out)
    }

    private mutating func writeKey(_ key: String, _ out: inout [UInt8]) {
        separate(&out)
        JSONValue.writeString(key, into: &out)
        out.append(UInt8(ascii: ":"))
    }

    /// The comma before every member but the first.
    private mutating func separate(_ out: inout [UInt8]) {
        if !first { out.append(UInt8(ascii: ",")) }
        first = false
    }

    public mutating func string(_ key: StaticString, _ value: String?, into out: inout [UInt8]) {
        self.key(key, &out)
        if let value { JSONValue.writeString(value, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    public mutating func int(_ key: StaticString, _ value: Int?, into out: inout [UInt8]) {
        self.key(key, &out)
        if let value { Self.appendDecimal(value, into: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// `value`'s decimal digits (as `String(value)` writes them), without making a `String`: exports write
    /// several numbers a message, in JSON and CSV alike.
    public static func appendDecimal(_ value: Int, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(48 + rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    public mutating func ints(_ key: StaticString, _ values: [Int], into out: inout [UInt8]) {
        self.key(key, &out)
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            Self.appendDecimal(value, into: &out)
        }
        out.append(UInt8(ascii: "]"))
    }

    /// `seconds` as ``ISO8601/format(_:)`` writes them (a string needing no escapes), or `null`.
    public mutating func timestamp(_ key: StaticString, _ seconds: Int?, into out: inout [UInt8]) {
        self.key(key, &out)
        guard let seconds else { return out.append(contentsOf: "null".utf8) }
        out.append(UInt8(ascii: "\""))
        ISO8601.write(seconds, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    public mutating func value(_ key: StaticString, _ value: JSONValue, into out: inout [UInt8]) {
        self.key(key, &out)
        value.write(into: &out)
    }

    /// A member whose value is JSON text already (compact, keys sorted), copied as it is.
    ///
    /// For columns the archive stores as canonical JSON: re-parsing them per record would double an
    /// export's cost. The caller vouches that `json` is valid JSON.
    public mutating func json(_ key: StaticString, _ json: String, into out: inout [UInt8]) {
        self.key(key, &out)
        out.append(contentsOf: json.utf8)
    }

    /// Closes the object, writing any extras that sort after the last member.
    public mutating func finish(into out: inout [UInt8]) {
        while nextExtra < extras.count {
            let extra = extras[nextExtra]
            nextExtra += 1
            writeKey(extra.key, &out)
            extra.value.write(into: &out)
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension Message {
    /// Appends the same bytes as `json.serialized()`, several times faster.
    public func writeJSON(into out: inout [UInt8]) {
        var object = JSONObjectWriter(extras: extra, into: &out)
        object.string("_id", id, into: &out)
        object.value("attachments", .array(attachments.map(\.json)), into: &out)
        object.string("chat_dialog_id", chatDialogID, into: &out)
        object.timestamp("created_at", createdAt, into: &out)
        object.int("date_sent", dateSent, into: &out)
        object.ints("delivered_ids", deliveredIDs, into: &out)
        object.string("message", text, into: &out)
        if let read { object.int("read", read, into: &out) }
        object.ints("read_ids", readIDs, into: &out)
        object.int("recipient_id", recipientID, into: &out)
        object.int("sender_id", senderID, into: &out)
        object.timestamp("updated_at", updatedAt, into: &out)
        object.finish(into: &out)
    }
}
