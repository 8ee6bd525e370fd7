import Archive
import Foundation
import QuickBlox
import Testing

@testable import Search

/// `MessageRecord`'s CSV writer against a reference written the plain way — every column made a `String`, each
/// field quoted a byte at a time (RFC 4180; with `spreadsheet`, OWASP's rule) — on random messages whose texts,
/// numbers and times reach every case: quotes, commas, line breaks, formula triggers, negative numbers, years
/// before 0 and after 9999, a zone or none.
@Suite("CSV records are written byte for byte as the reference writes them")
struct CSVRecordTests {
    static func referenceField(_ text: String?, spreadsheet: Bool) -> [UInt8] {
        guard let text else { return [] }
        let bytes = Array(text.utf8)
        let neutralise = spreadsheet && bytes.first.map { [61, 43, 45, 64, 9, 13].contains($0) } == true
        guard neutralise || bytes.contains(where: { [44, 34, 10, 13].contains($0) }) else { return bytes }
        var out: [UInt8] = [34]
        if neutralise { out.append(39) }
        for byte in bytes {
            if byte == 34 { out.append(34) }
            out.append(byte)
        }
        return out + [34]
    }

    static func referenceRecord(_ hit: SearchHit, zone: TimeZone?, spreadsheet: Bool) -> [UInt8] {
        let message = hit.message
        let time = { (seconds: Int) in
            zone.map { MessageRecord.iso(seconds, $0) } ?? ISO8601.format(seconds)
        }
        let fields: [String?] = [
            message.id, String(message.dateSent), time(message.dateSent), message.dialogID, hit.dialogName,
            hit.dialogType.map(String.init), message.senderID.map(String.init), hit.senderLogin, hit.senderName,
            message.recipientID.map(String.init), hit.recipientLogin, hit.recipientName, message.text,
            message.attachmentsJSON, message.customJSON, String(message.edited), message.deletedAt.map(time),
            message.updatedAt.map(time), time(message.firstSeenAt), time(message.lastSeenAt),
        ]
        return Array(fields.map { referenceField($0, spreadsheet: spreadsheet) }.joined(separator: [44]))
    }

    static let pieces = [
        "", "plain", "a,b", "\"", "\"\"", "say \"hi\"", "\n", "\r\n", "\r", "=1+1", "+", "-", "@x", "\t", "Δ",
        "北京", "🎉", "'", " ", ",", "end\"", "ελλάδα", "\u{0}", "٣",
    ]

    static func text(_ random: inout SeededRandom) -> String {
        (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }

    static func optionalText(_ random: inout SeededRandom) -> String? {
        Bool.random(using: &random) ? nil : text(&random)
    }

    /// Seconds at the interesting edges: around year 0 and 9999, before 1970, far negative, today.
    static func seconds(_ random: inout SeededRandom) -> Int {
        let edges = [
            ISO8601.firstFourDigitYear, ISO8601.firstFourDigitYear - 1, 253_402_300_799, 253_402_300_800,
            -1, 0, 1_735_689_600, -100_000_000_000, 400_000_000_000,
        ]
        return Bool.random(using: &random)
            ? edges.randomElement(using: &random)! + Int.random(in: -2...2, using: &random)
            : Int.random(in: -70_000_000_000...300_000_000_000, using: &random)
    }

    static func number(_ random: inout SeededRandom) -> Int? {
        [nil, 0, -1, 5, -100_002, 100_002, Int.max, Int.min + 1].randomElement(using: &random)!
            .map { $0 == 5 ? Int.random(in: -1_000_000...1_000_000, using: &random) : $0 }
    }

    @Test(arguments: [nil, "Europe/Berlin", "America/St_Johns"], [false, true])
    func recordsMatchTheReference(zoneName: String?, spreadsheet: Bool) throws {
        let zone = try zoneName.map { try #require(TimeZone(identifier: $0)) }
        var random = SeededRandom(seed: UInt64(zoneName?.count ?? 0) * 2 + (spreadsheet ? 1 : 0))
        for _ in 0..<3_000 {
            let message = ArchivedMessage(
                id: Self.text(&random), dialogID: Self.text(&random), senderID: Self.number(&random),
                recipientID: Self.number(&random), dateSent: Self.seconds(&random), createdAt: nil,
                updatedAt: Bool.random(using: &random) ? nil : Self.seconds(&random), text: Self.optionalText(&random),
                attachmentsJSON: Self.text(&random), customJSON: Self.text(&random), raw: "{}",
                firstSeenAt: Self.seconds(&random),
                lastSeenAt: Self.seconds(&random), edited: Self.number(&random) ?? 0,
                deletedAt: Bool.random(using: &random) ? nil : Self.seconds(&random))
            let hit = SearchHit(
                message: message, dialogName: Self.optionalText(&random), dialogType: Self.number(&random),
                senderLogin: Self.optionalText(&random), senderName: Self.optionalText(&random),
                recipientLogin: Self.optionalText(&random), recipientName: Self.optionalText(&random))
            var written: [UInt8] = []
            MessageRecord.writeBaseCSV(hit, zone: zone, spreadsheet: spreadsheet, into: &written)
            let expected = Self.referenceRecord(hit, zone: zone, spreadsheet: spreadsheet)
            #expect(written == expected, "\(String(decoding: written, as: UTF8.self))")
            if written != expected { return }
        }
    }

    @Test(arguments: CSVRecordTests.pieces + ["a\"b\"c", "\"\"\"", "=\"x\",y", "x\r\ny,\"z\""])
    func fieldsMatchTheReference(text: String) {
        for spreadsheet in [false, true] {
            var written: [UInt8] = []
            MessageRecord.appendCSVField(text, spreadsheet: spreadsheet, into: &written)
            #expect(written == Self.referenceField(text, spreadsheet: spreadsheet), "\(text)")
        }
    }
}
