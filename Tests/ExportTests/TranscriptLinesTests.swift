import Archive
import QuickBlox
import Testing

@testable import Export

/// A transcript's lines, pinned: times in UTC without `T` and `Z`, continuation lines indented, a CR LF kept
/// inside its line (one character to Swift, so never a line break of its own), attachments, edits and
/// deletions marked.
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
                hit(text: "crlf\r\nkept\nsplit", dateSent: 0),
                "[1970-01-01 00:00:00] Bob (bob): crlf\r\nkept\n    split\n"
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
}
