/// `application/x-www-form-urlencoded` query strings, as QuickBlox clients send them.
///
/// The real SDKs percent-encode brackets and commas (`sender_id%5Bin%5D=1%2C2`) while the docs
/// show them raw; both must mean the same. Hand-written because Foundation's `URLComponents`
/// leaves `+` alone and rejects some raw bracket forms that QuickBlox clients send.
public enum QueryString {
    /// Splits `a=1&b%5Bin%5D=2%2C3` into decoded pairs in order; `+` is a space.
    public static func parse(_ query: some StringProtocol) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            if let equals = part.firstIndex(of: "=") {
                pairs.append((decode(part[..<equals]), decode(part[part.index(after: equals)...])))
            } else {
                pairs.append((decode(part), ""))
            }
        }
        return pairs
    }

    /// Percent-decodes (and turns `+` into a space). Invalid escapes are kept as they are.
    public static func decode(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(text)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, so brackets and commas are
    /// encoded as the official SDKs do.
    public static func encode(_ text: some StringProtocol) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// Joins pairs into an encoded query string.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
