/// Text from the archive made safe to print on a terminal.
///
/// Message text, names and audit details are other people's input: an escape sequence in them could move
/// the cursor, recolour or retitle the terminal, or hide what follows, and bidirectional overrides can
/// make text read differently from what it is. Control characters (C0, DEL, C1) are shown as escapes
/// (`\x1B`), bidirectional embedding, override and isolate characters as `\u{202E}`; line breaks and tabs
/// become spaces, so one record stays one line. Everything else — every script — is printed as it is.
public enum TerminalText {
    public static func neutralised(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: out.append(" ")
            case 0x00..<0x20, 0x7F..<0xA0:
                out.append(contentsOf: "\\x\(hex(scalar.value, digits: 2))".unicodeScalars)
            case 0x202A...0x202E, 0x2066...0x2069:
                out.append(contentsOf: "\\u{\(hex(scalar.value, digits: 4))}".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
