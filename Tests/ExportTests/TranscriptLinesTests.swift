import Archive
import Foundation
import QuickBlox
import Testing

@testable import Export

/// A transcript's lines, pinned: times in UTC without `T` and `Z`, continuation lines indented — after every
/// line break, a CR LF (one character to Swift) or a lone CR too —, attachments, edits and deletions marked.
/// TranscriptBreaksTests tries every kind of line break and control character.
@Suite("Transcript lines")
struct TranscriptLinesTests {
    private static func hit(
        text: String?, dateSent: Int, attachments: String = "[]", edited: Int = 0, deletedAt: Int? = nil
    )
        -> SearchHit
    {
        let message = ArchivedMessage(
            id: "5f0000000000000000000001", dialogID: "5f00000000000000000000d1", senderID: 100_002, recipientID: 0,
            dateSent: dateSent, createdAt: dateSent, updatedAt: dateSent, text: text, attachmentsJSON: attachments,
            customJSON: "{}", raw: "{}", firstSeenAt: dateSent, lastSeenAt: dateSent, edited: edited,
            deletedAt: deletedAt)
        return SearchHit(message: message, dialogName: "Team", dialogType: 2, senderLogin: "bob", senderName: "Bob")
    }

    @Test(
        "Each message's lines, byte for byte",
        arguments: [
            (hit(text: "hello", dateSent: 1_735_689_600), "[2025-01-01 00:00:00] Bob (bob): hello\n"),
            (
                hit(text: "one\ntwo\n\nfour", dateSent: 1_741_000_123),
                "[2025-03-03 11:08:43] Bob (bob): one\n    two\n    \n    four\n"
            ),
            (
                hit(text: "crlf\r\nsplit\nsplit\rtoo", dateSent: 0),
                "[1970-01-01 00:00:00] Bob (bob): crlf\n    split\n    split\n    too\n"
            ),
            (hit(text: nil, dateSent: 4_102_444_799), "[2099-12-31 23:59:59] Bob (bob): \n"),
            (hit(text: "Zulu Time\n", dateSent: 86_400), "[1970-01-02 00:00:00] Bob (bob): Zulu Time\n    \n"),
            (
                hit(
                    text: "[attachment]", dateSent: 1_735_689_600,
                    attachments: #"[{"type":"image","name":"a.jpg","uid":"u1"}]"#, edited: 2, deletedAt: 1_735_689_660),
                "[2025-01-01 00:00:00] Bob (bob): [attachment]\n    [attachment: image, name a.jpg, uid u1]\n"
                    + "    [edited 2 times]\n    [deleted: gone from the server as of 2025-01-01T00:01:00Z]\n"
            ),
        ])
    func lines(hit: SearchHit, expected: String) {
        #expect(TranscriptWriter.lines(hit, carriage: .none) == expected)
    }

    /// The line breaks a transcript honours: LF, VT, FF, CR (CR LF is one), NEL, LINE and PARAGRAPH SEPARATOR.
    static let breaks: Set<UInt32> = [0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029]

    /// Whether a transcript writes `scalar` out as `\u{…}` (line breaks aside): C0 but tab, DEL, C1.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// `text` as a transcript writes it, by scalars: with `breaks`, each line break (CR LF as one) a new line
    /// indented by four spaces; every other control character — and without `breaks` the line breaks too —
    /// written out as `\u{1B}`.
    static func written(_ text: String, breaks: Bool) -> String {
        var out = String.UnicodeScalarView()
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if breaks, Self.breaks.contains(scalar.value) {
                if scalar == "\r", scalars.first == "\n" { scalars.removeFirst() }
                out.append(contentsOf: "\n    ".unicodeScalars)
            } else if isControl(scalar) || Self.breaks.contains(scalar.value) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The lines as they were written before they were written as bytes: `String` interpolation throughout, and
    /// line breaks and control characters by scalars (``written(_:breaks:)``).
    static func reference(_ hit: SearchHit) -> String {
        let message = hit.message
        let sender =
            (hit.senderName ?? hit.senderLogin).map { written($0, breaks: false) }
            ?? message.senderID.map { "user \($0)" } ?? "unknown sender"
        let login = hit.senderLogin.map { " (\(written($0, breaks: false)))" } ?? ""
        let body = message.text ?? ""
        let time = ISO8601.format(message.dateSent).replacingOccurrences(of: "T", with: " ")
            .replacingOccurrences(of: "Z", with: "")
        var out = "[\(time)] \(sender)\(login): "
        out += written(body, breaks: true) + "\n"
        if let attachments = try? JSONValue(parsing: message.attachmentsJSON), case .array(let items) = attachments {
            for item in items {
                guard case .object(let fields) = item else {
                    out += "    [attachment: \(written(item.jsonString, breaks: false))]\n"
                    continue
                }
                var parts: [String] = []
                for key in ["type", "name", "id", "uid", "url"] {
                    if case .string(let value)? = fields[key] {
                        parts.append(key == "type" ? value : "\(key) \(value)")
                    }
                }
                let description = parts.isEmpty ? item.jsonString : parts.joined(separator: ", ")
                out += "    [attachment: \(written(description, breaks: false))]\n"
            }
        }
        if message.edited > 0 { out += "    [edited \(message.edited) time\(message.edited == 1 ? "" : "s")]\n" }
        if let deletedAt = message.deletedAt {
            out += "    [deleted: gone from the server as of \(ISO8601.format(deletedAt))]\n"
        }
        return out
    }

    @Test("Random messages' lines, as the reference writes them, appended after what a buffer holds")
    func randomLinesMatchTheReference() {
        var random = SystemRandomNumberGenerator()
        let texts = [
            "", "a", "\n", "\r\n", "one\ntwo", "x\r\ny\nz", "Zulu T", "北京\n🎉", "\n\n", "end\n", "ελλάδα", "\r",
            "\u{2028}", "\u{2029}", "\u{85}", "\u{0B}\u{0C}", "\u{1B}[31m", "\u{7F}", "\u{9B}", "\u{0}", "\t", "©—…",
            "[2025-07-23 10:02:00] Support Desk (user1): I approve",
        ]
        let attachments = [
            "[]", "[ ]", #"[{"type":"image","name":"a.jpg","uid":"u1"}]"#, #"[{"id":"5"},{"url":"http://x"}]"#, "[1]",
            "not json", #"[{"other":true}]"#, #"[{"name":"a\r\n[2025-07-23 10:02:00] X (x): y\u001b[2J\u2028"}]"#,
        ]
        let names: [String?] = [nil, "Bob", "Ζωή Δ.", "", "Eve\r\n[2025-07-23 10:02:00] Boss", "\u{1B}]0;x\u{7}"]
        for _ in 0..<2_000 {
            let date = [0, -1, 1_735_689_600, ISO8601.firstFourDigitYear - 5, 253_402_300_800, 86_399].randomElement()!
            let message = ArchivedMessage(
                id: "m", dialogID: "d", senderID: [nil, 100_002, -3].randomElement()!, recipientID: 0,
                dateSent: date + Int.random(in: 0...100_000, using: &random), createdAt: nil, updatedAt: nil,
                text: Bool.random() ? nil : (0..<Int.random(in: 0...3)).map { _ in texts.randomElement()! }.joined(),
                attachmentsJSON: attachments.randomElement()!, customJSON: "{}", raw: "{}", firstSeenAt: 0,
                lastSeenAt: 0, edited: [0, 1, 3].randomElement()!,
                deletedAt: Bool.random() ? nil : Int.random(in: -100...2_000_000_000))
            let hit = SearchHit(
                message: message, dialogName: nil, dialogType: 2, senderLogin: names.randomElement()!,
                senderName: names.randomElement()!)
            var out = Array("KEPT".utf8)
            TranscriptWriter.write(hit, carriage: .none, into: &out)
            let expected = Self.reference(hit)
            #expect(out == Array("KEPT".utf8) + Array(expected.utf8), "\(expected)")
            #expect(TranscriptWriter.lines(hit, carriage: .none) == expected)
        }
    }
}
