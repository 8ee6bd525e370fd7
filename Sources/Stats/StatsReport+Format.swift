import QuickBlox

extension StatsReport {
    /// `1,234,567`.
    static func number(_ value: Int) -> String {
        NumberText.grouped(value)
    }

    /// `12.3`.
    static func decimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `4.2 %` of `total`.
    static func share(_ part: Int, of total: Int) -> String {
        total > 0 ? decimal(Double(part) * 100 / Double(total)) + " %" : ""
    }

    /// `42s`, `7m 05s`, `3h 02m`, `2d 04h`.
    static func duration(_ seconds: Int) -> String {
        let s = max(0, seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m \(two(s % 60))s" }
        if s < 86_400 { return "\(s / 3600)h \(two(s % 3600 / 60))m" }
        return "\(s / 86_400)d \(two(s % 86_400 / 3600))h"
    }

    /// A name fit for a terminal: control characters (which could move the cursor or recolour the
    /// screen) become `?`, line breaks spaces, and text beyond `width` characters is cut with `…`.
    static func clean(_ text: String, width: Int = 80) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A, 0x0D, 0x09: out.unicodeScalars.append(" ")
            case 0x00..<0x20, 0x7F..<0xA0, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069:
                out.unicodeScalars.append("?")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out.count > width ? String(out.prefix(width - 1)) + "…" : out
    }

    /// `text` padded with spaces on the right to `width` characters.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` right-aligned in `width` characters.
    static func right(_ text: String, _ width: Int) -> String {
        text.count >= width ? " " + text : String(repeating: " ", count: width - text.count) + text
    }

    /// A totals line: label, right-aligned number, detail.
    static func row(_ label: String, _ value: Int, _ detail: String) -> String {
        "  " + pad(label, 12) + right(number(value), 12) + "   " + detail
    }
}
