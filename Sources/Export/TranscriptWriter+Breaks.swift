import Archive

/// What a transcript makes of line breaks and control characters, so that a message can only add lines of its
/// own, indented, and `cat` of a transcript cannot drive the terminal.
///
/// A message's text is cut at every line break a viewer may honour — LF, CR LF, a lone CR, NEL (U+0085),
/// LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029), vertical tab and form feed — and each piece after the
/// first is a continuation line, indented by four spaces: no text can make a line that begins like a message's
/// header (`[2025-07-23 10:02:00] Name (login): …`). Every other control character (C0 but tab, DEL, C1) becomes
/// its code point written out, `\u{1B}` (upper-case hex, as Swift writes it), and so do the bidirectional
/// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), with which a name or a text could make
/// the rest of its line display in another order ("Trojan Source", CVE-2021-42574); the marks LRM, RLM and ALM,
/// which reorder nothing around them, are kept. In names, logins, dialog names and attachment descriptions,
/// which are one line each, the line breaks are written out the same way.
///
/// Everything else is copied byte for byte, so the transcript of a text with none of these characters is what
/// it always was. The exact text is in `messages.jsonl`; a transcript is for reading.
extension TranscriptWriter {
    /// A continuation line's indentation.
    static let indentation = Array("    ".utf8)

    /// Appends `text`'s UTF-8: each line break a new line with ``indentation`` when `breaks`, else written out
    /// like the control characters.
    static func appendSafe(_ text: String, breaks: Bool, into out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendSafe($0, breaks: breaks, into: &out) }
    }

    /// ``appendSafe(_:breaks:into:)`` of a string's bytes (valid UTF-8). One pass; the common text, with no
    /// byte below 0x20 but tab, no DEL, no 0xC2 (U+0080–U+00BF) and no 0xE2 (U+2000–U+2FFF), is copied whole.
    static func appendSafe(_ bytes: UnsafeBufferPointer<UInt8>, breaks: Bool, into out: inout [UInt8]) {
        let count = bytes.count
        var copied = 0
        var index = 0
        while index < count {
            let byte = bytes[index]
            let scalar: UInt32
            var length = 1
            var isBreak = false
            if byte < 0x20 {
                if byte == 0x09 {
                    index += 1
                    continue
                }
                scalar = UInt32(byte)
                isBreak = (0x0A...0x0D).contains(byte)
                // CR LF is one break; written out (`breaks` false), each is a character of its own.
                if breaks, byte == 0x0D, index + 1 < count, bytes[index + 1] == 0x0A { length = 2 }
            } else if byte == 0x7F {
                scalar = 0x7F
            } else if byte == 0xC2, index + 1 < count, bytes[index + 1] < 0xA0 {
                // U+0080–U+009F, the C1 controls: 0xC2 then 0x80–0x9F.
                scalar = UInt32(bytes[index + 1])
                length = 2
                isBreak = scalar == 0x85
            } else if byte == 0xE2, index + 2 < count,
                (bytes[index + 1] == 0x80 && (0xA8...0xAE).contains(bytes[index + 2]))
                    || (bytes[index + 1] == 0x81 && (0xA6...0xA9).contains(bytes[index + 2]))
            {
                // U+2028 and U+2029 (line breaks), U+202A–U+202E and U+2066–U+2069 (bidi embeddings, overrides
                // and isolates): 0xE2 0x80 0xA8–0xAE, 0xE2 0x81 0xA6–0xA9.
                scalar = 0x2000 + (UInt32(bytes[index + 1] - 0x80) << 6) + UInt32(bytes[index + 2] - 0x80)
                length = 3
                isBreak = scalar == 0x2028 || scalar == 0x2029
            } else {
                index += 1
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<index]))
            if isBreak, breaks {
                out.append(UInt8(ascii: "\n"))
                out.append(contentsOf: indentation)
            } else {
                appendEscape(scalar, into: &out)
            }
            index += length
            copied = index
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[copied..<count]))
    }

    /// `\u{1B}`: a control character written out.
    static func appendEscape(_ scalar: UInt32, into out: inout [UInt8]) {
        out.append(contentsOf: #"\u{"#.utf8)
        out.append(contentsOf: String(scalar, radix: 16, uppercase: true).utf8)
        out.append(UInt8(ascii: "}"))
    }

    /// `text` as ``appendSafe(_:breaks:into:)`` writes it.
    static func safe(_ text: String, breaks: Bool) -> String {
        var out: [UInt8] = []
        appendSafe(text, breaks: breaks, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A message's lines (``lines(_:files:carriage:)``) passed through `redact` (`--redact`), which sees the lines
    /// whole so that attachments still find their files. A redaction pattern may match a continuation line's
    /// indentation, or the line break before it; every line after the header that lost its indentation gets it
    /// back (and the lines end with a line break), so redacting cannot make a line that begins like a header
    /// either.
    static func redactedLines(
        _ hit: SearchHit, files: [FileReference] = [], carriage: FileReference.Carriage = .bundled,
        redact: (String) -> String
    ) -> String {
        let redacted = Array(redact(lines(hit, files: files, carriage: carriage)).utf8)
        var out: [UInt8] = []
        out.reserveCapacity(redacted.count + 8)
        var start = 0
        while start < redacted.count {
            let end = redacted[start...].firstIndex(of: UInt8(ascii: "\n")) ?? redacted.count
            let line = redacted[start..<end]
            if start > 0, !line.starts(with: indentation) { out.append(contentsOf: indentation) }
            out.append(contentsOf: line)
            out.append(UInt8(ascii: "\n"))
            start = end + 1
        }
        return String(decoding: out, as: UTF8.self)
    }
}
