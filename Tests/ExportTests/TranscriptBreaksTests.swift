import Archive
import Foundation
import QuickBlox
import Testing

@testable import Export

/// No text can forge a transcript line: every line break a viewer honours — LF, CR LF, a lone CR, NEL,
/// U+2028, U+2029, VT, FF — starts an indented continuation line, on the byte path and after `--redact`, and
/// control characters are written out (`\u{1B}`) instead of reaching the terminal. Texts with none of them
/// are copied byte for byte.
@Suite("Transcript breaks")
struct TranscriptBreaksTests {
    /// Every line break, as a text may hold it.
    static let breaks = ["\n", "\r\n", "\r", "\u{85}", "\u{2028}", "\u{2029}", "\u{0B}", "\u{0C}"]
    /// Control characters that are not line breaks: C0 (tab aside), DEL, C1, and the bidi embeddings, overrides
    /// and isolates.
    static let controls = [
        "\u{0}", "\u{7}", "\u{8}", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}", "\u{202A}", "\u{202B}",
        "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}", "\u{2068}", "\u{2069}",
    ]
    /// Ordinary text, with the characters whose UTF-8 begins like a C1 control's or U+2028's (0xC2, 0xE2 0x80)
    /// and look-alikes of a header.
    static let ordinary = [
        "a", "ok", " ", "\t", "[", "]", "[2025-07-23 10:02:00] Support Desk (user1): I approve", "北京", "🎉", "é",
        "©", "\u{A0}", "\u{BF}", "—", "…", "\u{2027}", "\u{202F}", "\u{2065}", "\u{206A}",
        "\u{200E}", "\u{200F}", "\u{61C}", "שלום", "مرحبا", "€", "\u{301}", "    ", ": ",
    ]
    static let header = "[2025-07-23 10:00:00] Bob (bob): "

    static func hit(text: String?, name: String? = "Bob", login: String? = "bob", attachments: String = "[]")
        -> SearchHit
    {
        let message = ArchivedMessage(
            id: "5f0000000000000000000001", dialogID: "5f00000000000000000000d1", senderID: 100_002, recipientID: 0,
            dateSent: 1_753_264_800, createdAt: nil, updatedAt: nil, text: text, attachmentsJSON: attachments,
            customJSON: "{}", raw: "{}", firstSeenAt: 0, lastSeenAt: 0, edited: 0, deletedAt: nil)
        return SearchHit(message: message, dialogName: "Team", dialogType: 2, senderLogin: login, senderName: name)
    }

    /// A random text of the pieces above; `breaks` and `controls` say how often each kind comes.
    static func text(_ random: inout SeededRandom, breaks: Double, controls: Double) -> String {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in
            if random.chance(breaks) { return random.pick(Self.breaks) }
            if random.chance(controls) { return random.pick(Self.controls) }
            return random.pick(ordinary)
        }.joined()
    }

    /// What a viewer may take for a line break, or a terminal for a command: none may be left but LF (and tab).
    static func unsafeScalars(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter {
            $0 != "\n" && (TranscriptLinesTests.isControl($0) || TranscriptLinesTests.breaks.contains($0.value))
        }
    }

    /// The lines' rows, by bytes (a combining mark after the header's space must not move a boundary), without
    /// the final line break, which must be there.
    static func rows(_ lines: String) -> [ArraySlice<UInt8>] {
        let bytes = Array(lines.utf8)
        #expect(bytes.last == UInt8(ascii: "\n"), "\(lines.debugDescription)")
        return bytes.dropLast().split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    }

    /// Checks the properties on `lines` written for `text` (with no attachment): one header, then only indented
    /// lines, none beginning with `[`; one more line than the text has line breaks; and the text's other
    /// characters there in order, control characters written out.
    static func check(_ lines: String, text: String, header: String = header) {
        #expect(unsafeScalars(lines).isEmpty, "\(lines.debugDescription)")
        let rows = rows(lines)
        let header = Array(header.utf8)
        let indentation = Array("    ".utf8)
        #expect(rows.first?.starts(with: header) == true, "\(lines.debugDescription)")
        for row in rows.dropFirst() {
            #expect(row.starts(with: indentation), "\(lines.debugDescription)")
            #expect(row.first != UInt8(ascii: "["), "\(lines.debugDescription)")
        }
        // Recoverable: the line breaks are the rows' ends, everything else is there in order.
        let breakCount = TranscriptLinesTests.written(text, breaks: true).utf8.filter { $0 == 0x0A }.count
        #expect(rows.count == breakCount + 1, "\(text.debugDescription) → \(lines.debugDescription)")
        let kept =
            (rows.first.map { Array($0.dropFirst(header.count)) } ?? [])
            + rows.dropFirst().flatMap { $0.dropFirst(indentation.count) }
        var withoutBreaks = text
        withoutBreaks.unicodeScalars.removeAll { TranscriptLinesTests.breaks.contains($0.value) }
        #expect(
            kept == Array(TranscriptLinesTests.written(withoutBreaks, breaks: false).utf8), "\(text.debugDescription)")
    }

    @Test("The audit's forged line, after each kind of line break, is an indented continuation", arguments: breaks)
    func forgedLine(separator: String) {
        let forged = "[2025-07-23 10:02:00] Support Desk (user1): I approve"
        let hit = Self.hit(text: "ok" + separator + forged)
        let expected = Self.header + "ok\n    " + forged + "\n"
        #expect(TranscriptWriter.lines(hit, carriage: .none) == expected)
        var out: [UInt8] = []
        TranscriptWriter.write(hit, carriage: .none, into: &out)
        #expect(out == Array(expected.utf8))
        #expect(TranscriptWriter.redactedLines(hit, carriage: .none, redact: { $0 }) == expected)
    }

    @Test("Control characters are written out, tab kept")
    func controlsWrittenOut() {
        let hit = Self.hit(text: "\u{1B}[2J\u{1B}]0;owned\u{7}\tx\u{7F}\u{9B}31m\u{0}")
        #expect(
            TranscriptWriter.lines(hit, carriage: .none)
                == Self.header + #"\u{1B}[2J\u{1B}]0;owned\u{7}"# + "\t" + #"x\u{7F}\u{9B}31m\u{0}"# + "\n")
    }

    @Test("Names, logins, dialog names and attachments stay on their line, line breaks written out")
    func oneLineFields() {
        let hit = Self.hit(
            text: "hi", name: "Eve\r\n[2025-07-23 10:02:00] Boss", login: "eve\u{2028}x",
            attachments: #"[{"type":"file","name":"a\n[2025-07-23 10:02:00] Boss (boss): ok\u001b[0m"}]"#)
        #expect(
            TranscriptWriter.lines(hit, carriage: .none)
                == #"[2025-07-23 10:00:00] Eve\u{D}\u{A}[2025-07-23 10:02:00] Boss (eve\u{2028}x): hi"# + "\n"
                + #"    [attachment: file, name a\u{A}[2025-07-23 10:02:00] Boss (boss): ok\u{1B}[0m]"# + "\n")
        var dialog = hit
        dialog.dialogName = "Team\n[2025-07-23 10:02:00] Boss (boss): ok"
        #expect(TranscriptWriter.heading(dialog).hasPrefix(#"Team\u{A}[2025-07-23 10:02:00] Boss (boss): ok — group"#))
    }

    @Test("Bidi overrides and isolates are written out in texts, names and dialog names; the marks are kept")
    func bidiControlsWrittenOut() {
        // The Trojan Source shape: an override that would show the rest of the header's line reversed.
        let hit = Self.hit(
            text: "pay \u{202E}0001\u{202C} \u{2067}x\u{2069} \u{200F}ok", name: "Eve\u{202E}", login: "e")
        #expect(
            TranscriptWriter.lines(hit, carriage: .none)
                == #"[2025-07-23 10:00:00] Eve\u{202E} (e): pay \u{202E}0001\u{202C} \u{2067}x\u{2069} "#
                + "\u{200F}ok\n")
        var dialog = hit
        dialog.dialogName = "\u{2066}Team\u{2069}"
        #expect(TranscriptWriter.heading(dialog).hasPrefix(#"\u{2066}Team\u{2069} — group"#))
    }

    @Test(
        "A dialog name that begins like a message header has its `[` written out; other names are as they were",
        arguments: [
            ("[2025-07-23 10:02:00] Boss (boss): approved", #"\u{5B}2025-07-23 10:02:00] Boss (boss): approved"#),
            ("  [x", #"  \u{5B}x"#), ("[", #"\u{5B}"#), ("Team [ops]", "Team [ops]"), ("x[", "x["),
            ("]team", "]team"), ("Team", "Team"),
        ])
    func dialogNamesCannotReadAsMessages(name: String, written: String) {
        var hit = Self.hit(text: "hi")
        hit.dialogName = name
        let heading = TranscriptWriter.heading(hit)
        #expect(heading.hasPrefix(written + " — group dialog "), "\(heading.debugDescription)")
        #expect(heading.split(separator: "\n").allSatisfy { !$0.hasPrefix("[") })
    }

    @Test("Random texts of every line break and control character: one header, then indented lines, nothing lost")
    func randomTexts() {
        var random = SeededRandom(seed: 0x7EA5_C21B)
        for _ in 0..<5_000 {
            let text = Self.text(&random, breaks: 0.3, controls: 0.2)
            let hit = Self.hit(text: text)
            let lines = TranscriptWriter.lines(hit, carriage: .none)
            Self.check(lines, text: text)
            var out = Array("KEPT".utf8)
            TranscriptWriter.write(hit, carriage: .none, into: &out)
            #expect(out == Array("KEPT".utf8) + Array(lines.utf8))
            #expect(TranscriptWriter.redactedLines(hit, carriage: .none, redact: { $0 }) == lines)
        }
    }

    @Test("Texts without line breaks or control characters are copied byte for byte, as before")
    func ordinaryTextsUnchanged() {
        var random = SeededRandom(seed: 0x0DD1_7E57)
        for _ in 0..<2_000 {
            let text = Self.text(&random, breaks: 0, controls: 0)
            let hit = Self.hit(text: text)
            #expect(TranscriptWriter.lines(hit, carriage: .none) == Self.header + text + "\n")
            let multiline = text + "\n" + text
            #expect(
                TranscriptWriter.lines(Self.hit(text: multiline), carriage: .none)
                    == Self.header + text + "\n    " + text + "\n")
        }
    }

    @Test("After --redact the lines are just as safe, whatever a pattern takes away")
    func redactedTexts() throws {
        var random = SeededRandom(seed: 0x2EDA_C7ED)
        let redactor = Redactor(try Redaction(list: "all", patterns: ["\\s{4}", "\\n +", "ok"]))
        let takers: [(String) -> String] = [
            { $0 }, redactor.redact,
            { $0.replacingOccurrences(of: "    ", with: "") },
            { $0.replacingOccurrences(of: "\n    ", with: "\n") },
            { $0.replacingOccurrences(of: "\n", with: "") },
        ]
        for _ in 0..<2_000 {
            let text = Self.text(&random, breaks: 0.3, controls: 0.1)
            let hit = Self.hit(text: text)
            for redact in takers {
                let lines = TranscriptWriter.redactedLines(hit, carriage: .none, redact: redact)
                #expect(Self.unsafeScalars(lines).isEmpty, "\(lines.debugDescription)")
                let rows = Self.rows(lines)
                #expect(rows.first?.starts(with: "[2025-07-23 10:00:00] ".utf8) == true, "\(lines.debugDescription)")
                for row in rows.dropFirst() { #expect(row.starts(with: "    ".utf8), "\(lines.debugDescription)") }
            }
            #expect(
                TranscriptWriter.redactedLines(hit, carriage: .none, redact: { $0 })
                    == TranscriptWriter.lines(hit, carriage: .none))
        }
    }
}
