/// The number a custom parameter's text stands for, when it is one.
///
/// QuickBlox clients send custom parameters as strings or as JSON numbers; `<`, `<=`, `>` and `>=` compare them
/// as numbers (docs/query-language.md). A text is a number only when all of it is one: an optional sign, digits
/// with an optional fraction (`3`, `3.`, `.5`) and an optional exponent, with ASCII white space around — the
/// grammar the PostgreSQL dialect checks with `^\s*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?\s*$`.
/// `abc`, `3abc` and the empty text are not numbers (SQLite's `CAST` would read them as 0 and 3), so no
/// comparison matches them, and the parser refuses such a bound.
public enum CustomNumber {
    /// The value of `text`, or `nil` when it is not wholly a finite decimal number.
    public static func value(of text: String) -> Double? {
        let bytes = Array(text.utf8)
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        var index = start
        func digits() -> Int {
            let first = index
            while index < end, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - first
        }
        if index < end, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
        let whole = digits()
        var fraction = 0
        if index < end, bytes[index] == 0x2E {
            index += 1
            fraction = digits()
        }
        guard whole > 0 || fraction > 0 else { return nil }
        if index < end, bytes[index] == 0x65 || bytes[index] == 0x45 {
            index += 1
            if index < end, bytes[index] == 0x2B || bytes[index] == 0x2D { index += 1 }
            guard digits() > 0 else { return nil }
        }
        guard index == end, let value = Double(String(decoding: bytes[start..<end], as: UTF8.self)), value.isFinite
        else { return nil }
        return value
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
