/// ISO-8601 timestamps as QuickBlox writes them, to and from unix seconds.
///
/// QuickBlox sends `2019-09-08T17:24:11Z` in lists and `2019-08-26T20:09:22+00:00` from
/// `GET /session.json`; both must parse. Hand-written instead of `ISO8601DateFormatter` because it
/// runs for two fields of every archived message, must be `Sendable` without locks, and needs only
/// this one shape.
public enum ISO8601 {
    /// Unix seconds for `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM|±HHMM| UTC)`, or `nil` when malformed.
    public static func parse(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[start..<(start + count)] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 19,
            let year = number(0, 4), bytes[4] == UInt8(ascii: "-"),
            let month = number(5, 2), bytes[7] == UInt8(ascii: "-"),
            let day = number(8, 2), bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            let hour = number(11, 2), bytes[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), bytes[16] == UInt8(ascii: ":"),
            let second = number(17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 { index += 1 }
        }
        var offset = 0
        let rest = String(decoding: bytes[index...], as: UTF8.self)
        switch rest {
        case "Z", "z", " UTC", "UTC", "": offset = 0
        default:
            var zone = Array(rest.utf8)
            if zone.first == UInt8(ascii: " ") { zone.removeFirst() }
            guard let sign = zone.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            let digits = zone.dropFirst().filter { $0 != UInt8(ascii: ":") }
            guard digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            let d = digits.map { Int($0 - 48) }
            offset = (d[0] * 10 + d[1]) * 3600 + (d[2] * 10 + d[3]) * 60
            if sign == UInt8(ascii: "-") { offset = -offset }
        }
        return daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
            - offset
    }

    /// `2019-09-08T17:24:11Z` for unix seconds.
    public static func format(_ seconds: Int) -> String {
        let (year, month, day, hour, minute, second) = components(seconds)
        guard (0...9999).contains(year) else {
            let date = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
            return "\(date)T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
        }
        // Digits written into a fixed buffer: this runs twice for every message the emulator serves.
        return String(unsafeUninitializedCapacity: 20) { buffer in
            fill(buffer, (year, month, day, hour, minute, second))
            return 20
        }
    }

    /// The first second of the year 0 (0000-01-01T00:00:00Z): from it to the end of 9999, ``format(_:)``
    /// writes four digits of year, so its text begins with a digit.
    public static let firstFourDigitYear = -62_167_219_200

    /// Appends ``format(_:)``'s text to `out` without making a `String`: exports write four timestamps a
    /// message.
    public static func write(_ seconds: Int, into out: inout [UInt8]) {
        let parts = components(seconds)
        guard (0...9999).contains(parts.0) else { return out.append(contentsOf: format(seconds).utf8) }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            fill(buffer, parts)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[0..<20]))
        }
    }

    /// Writes `YYYY-MM-DDTHH:MM:SSZ` (20 bytes) at the start of `buffer`, for a year of four digits.
    private static func fill(
        _ buffer: UnsafeMutableBufferPointer<UInt8>, _ parts: (Int, Int, Int, Int, Int, Int)
    ) {
        let (year, month, day, hour, minute, second) = parts
        func put(_ value: Int, _ width: Int, at offset: Int) {
            var value = value
            for index in stride(from: offset + width - 1, through: offset, by: -1) {
                buffer[index] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        let separators: StaticString = "--T::Z"
        var offset = 0
        for (index, (value, width)) in [(year, 4), (month, 2), (day, 2), (hour, 2), (minute, 2), (second, 2)]
            .enumerated()
        {
            put(value, width, at: offset)
            buffer[offset + width] = separators.utf8Start[index]
            offset += width + 1
        }
    }

    /// `YYYY-MM-DDTHH:MM:SS±HH:MM`: the instant as the clocks `offset` seconds east of UTC show it, with that
    /// offset (`…Z`, as ``format(_:)``, when it is 0).
    public static func format(_ seconds: Int, offset: Int) -> String {
        guard offset != 0 else { return format(seconds) }
        let local = format(seconds + offset)
        let sign = offset < 0 ? "-" : "+"
        return String(local.dropLast()) + sign + pad(abs(offset) / 3600, 2) + ":" + pad(abs(offset) / 60 % 60, 2)
    }

    /// `2016-05-02 19:52:00 UTC`, the form of QuickBlox's `QB-Token-ExpirationDate` header.
    public static func formatHeader(_ seconds: Int) -> String {
        let (year, month, day, hour, minute, second) = components(seconds)
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2)) \(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)) UTC"
    }

    /// Year, month, day, hour, minute and second (UTC) of unix seconds, on the proleptic Gregorian calendar.
    public static func components(_ seconds: Int) -> (Int, Int, Int, Int, Int, Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let (year, month, day) = civilFromDays(days)
        return (year, month, day, rest / 3600, (rest % 3600) / 60, rest % 60)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    // Howard Hinnant's days-from-civil algorithms (public domain).
    /// Days since 1970-01-01 of a proleptic Gregorian date (month 1...12).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The (year, month, day) of a count of days since 1970-01-01.
    public static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
