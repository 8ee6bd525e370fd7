/// A message `_id` of 24 lowercase hex digits (a MongoDB ObjectId, as QuickBlox and the emulator make
/// them) kept as its 12 bytes, or the number of an id kept as text elsewhere.
///
/// A `String` of 24 characters is too long to be stored inline: each costs an allocation of its own (80 bytes
/// with the allocator's header, 80 MB at a million messages) for 12 bytes of information. Hex ids order as their
/// text does (the order ``MessageList`` keeps); the numbers of text ids have no order.
struct PackedObjectID: Hashable, Comparable, Sendable {
    /// The first 16 hex digits; for a text id, its number.
    var high: UInt64
    /// The last 8 hex digits; 0 for a text id.
    var low: UInt32
    /// Whether `high` numbers an id kept as text (one that is not 24 lowercase hex digits).
    var isText: Bool

    init(number: UInt64) {
        high = number
        low = 0
        isText = true
    }

    /// The id of these 24 lowercase hex digits, or `nil` for any other text (which must stay as it is).
    init?(hex text: String) {
        guard text.utf8.count == 24 else { return nil }
        var high: UInt64 = 0
        var low: UInt32 = 0
        for (index, byte) in text.utf8.enumerated() {
            guard let digit = Self.digit(byte) else { return nil }
            if index < 16 { high = high << 4 | UInt64(digit) } else { low = low << 4 | UInt32(digit) }
        }
        self.high = high
        self.low = low
        isText = false
    }

    /// The 24 hex digits (for a hex id).
    var hex: String {
        String(unsafeUninitializedCapacity: 24) { buffer in
            for index in 0..<16 { buffer[index] = Self.digits[Int(high >> UInt64(60 - 4 * index) & 0xF)] }
            for index in 0..<8 { buffer[16 + index] = Self.digits[Int(low >> UInt32(28 - 4 * index) & 0xF)] }
            return 24
        }
    }

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
