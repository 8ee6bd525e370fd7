import QuickBlox

/// Makes 24-hex MongoDB ObjectIds: 4 bytes of timestamp, then 8 bytes from the generator.
struct ObjectIDGenerator: Sendable {
    var random: SeededRandom

    mutating func make(timestamp: Int) -> String {
        let hex = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        let time = UInt32(truncatingIfNeeded: max(0, timestamp))
        for shift in stride(from: 28, through: 0, by: -4) { bytes.append(hex[Int((time >> UInt32(shift)) & 0xF)]) }
        let tail = random.next()
        for shift in stride(from: 60, through: 0, by: -4) { bytes.append(hex[Int((tail >> UInt64(shift)) & 0xF)]) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
