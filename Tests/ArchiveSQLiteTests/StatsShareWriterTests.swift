import Archive
import ArchiveSQL
import ArchiveTestSupport
import Foundation
import GRDB
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// SQLite's refresh tallies each stale dialog's shares in one read of its messages (``StatsShareWriter``); the share
/// statements of ``StatsRollup`` stay the definition, and PostgreSQL's refresh and every exact report run them. After
/// random histories — messages before 1970 and at shared instants, no sender, attachment lists of every shape,
/// edits, tombstones, reconcile counts before and after them, dialogs turning private and back — every roll-up
/// table the pass wrote (incrementally, and from scratch) equals what the statements write from scratch, row for row.
@Suite("Statistics roll-ups tallied in one pass equal the share statements")
struct StatsShareWriterTests {
    static let start = ArchiveFixture.baseTime
    static let tables = [
        "stats_dialog_hours", "stats_dialog_kinds", "stats_dialog_sender_days", "stats_dialog_senders",
        "stats_dialog_replies", "stats_dialogs", "stats_hours", "stats_kinds", "stats_sender_days", "stats_senders",
        "stats_replies",
    ]

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func onePassEqualsTheStatements(seed: UInt64) async throws {
        let fixture = try await ArchiveFixture()
        let archive = fixture.sqlite
        var history = RawHistory(seed: seed)
        try await archive.storeDialogs(rawItems: history.dialogs.map(\.json), at: Self.start)
        var seen: Set<String> = []
        for round in 0..<5 {
            try await history.write(to: archive, at: Self.start + 1000 * round)
            try await archive.settleAfterBulkChange()
            let byPass = try await Self.contents(archive)
            _ = try await archive.sql.write { try StatsRollup.rebuild($0) }
            let byStatements = try await Self.contents(archive)
            for table in Self.tables {
                #expect(byPass[table] == byStatements[table], "round \(round), \(table)")
                if byPass[table]?.isEmpty == false { seen.insert(table) }
            }
            _ = try await archive.rebuildStatistics()
            #expect(try await Self.contents(archive) == byStatements, "round \(round), rebuilt in one pass")
        }
        #expect(seen == Set(Self.tables), "every roll-up held rows to compare")
    }

    /// Each table's rows, each as text, sorted.
    static func contents(_ archive: SQLiteArchive) async throws -> [String: [String]] {
        try await archive.pool.read { db in
            var contents: [String: [String]] = [:]
            for table in tables {
                contents[table] = try Row.fetchAll(db, sql: "SELECT * FROM \(table)").map(\.description).sorted()
            }
            return contents
        }
    }
}

/// Random writes of raw QuickBlox JSON, for shapes the typed builders never make.
struct RawHistory {
    var random: SeededRandom
    var next = 1
    var dialogs: [Dialog]
    /// The ids written, and each message's number and date sent by dialog.
    var written: [String] = []
    var numbers: [String: [Int]] = [:]
    var sent: [Int: Int] = [:]

    init(seed: UInt64) {
        random = SeededRandom(seed: seed)
        dialogs = (1...6).map { number in
            Dialog(
                id: ArchiveFixture.objectID(0xE00 + number), type: number <= 3 ? .private : .group,
                name: number <= 3 ? nil : "room \(number)", userID: 1,
                occupantIDs: number <= 3 ? [1, 1 + number] : [1, 2, 3, 4], createdAt: 0, updatedAt: 0)
        }
    }

    /// A round of pages, tombstones, reconcile counts and a dialog changing type.
    mutating func write(to archive: SQLiteArchive, at time: Int) async throws {
        for (index, dialog) in dialogs.enumerated()
        where Bool.random(using: &random) || time == StatsShareWriterTests.start {
            let earlier = numbers[dialog.id] ?? []
            var page: [JSONValue] = []
            var inPage: Set<Int> = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let (number, json) = message(in: dialog, earlier: earlier)
                if inPage.insert(number).inserted { page.append(json) }
            }
            try await archive.storeMessages(dialogID: dialog.id, rawItems: page, cursor: nil, at: time + index)
        }
        let doomed = (0..<4).compactMap { _ in written.randomElement(using: &random) }
        _ = try await archive.tombstoneMessages(ids: doomed, at: time + 10)
        for dialog in dialogs where Bool.random(using: &random) {
            let when = time + [5, 20].randomElement(using: &random)!
            try await archive.recordServerCount(dialogID: dialog.id, count: 7, at: when)
        }
        let index = Int.random(in: 0..<dialogs.count, using: &random)
        dialogs[index].type = dialogs[index].type == .private ? .group : .private
        dialogs[index].updatedAt = time
        try await archive.storeDialogs(rawItems: [dialogs[index].json], at: time + 30)
    }

    /// A new message, or an edit of one of `earlier` (same date, a new text, sometimes new attachments).
    private mutating func message(in dialog: Dialog, earlier: [Int]) -> (Int, JSONValue) {
        let number: Int
        if let edited = earlier.randomElement(using: &random), Int.random(in: 0..<4, using: &random) == 0 {
            number = edited
        } else {
            number = next
            next += 1
            // Dates on both sides of 1970, at a few instants (ties broken by id), whole hours and days apart.
            let instants = [
                -90_061, -3_600, -1, 0, 86_399, StatsShareWriterTests.start, StatsShareWriterTests.start + 59,
            ]
            sent[number] =
                instants.randomElement(using: &random)! + Int.random(in: 0...3, using: &random) * 3_600
        }
        let sender: JSONValue =
            Int.random(in: 0..<8, using: &random) == 0 ? .null : .int(dialog.occupantIDs.randomElement(using: &random)!)
        let kinds: [JSONValue] = [.string("image"), .string("fi\"le ü"), .null, .int(5), .string("")]
        let attachments = (0..<[0, 0, 1, 2, 3].randomElement(using: &random)!).map { index -> JSONValue in
            var attachment: [String: JSONValue] = ["id": .string("a\(number)-\(index)")]
            if let kind = kinds.randomElement(using: &random), Int.random(in: 0..<6, using: &random) > 0 {
                attachment["type"] = kind
            }
            return .object(attachment)
        }
        let id = ArchiveFixture.objectID(number << 12 | Int(dialog.id.suffix(3), radix: 16)!)
        if !written.contains(id) {
            written.append(id)
            numbers[dialog.id, default: []].append(number)
        }
        return (
            number,
            .object([
                "_id": .string(id), "chat_dialog_id": .string(dialog.id), "message": .string("m \(number) \(next)"),
                "date_sent": .int(sent[number]!), "sender_id": sender, "attachments": .array(attachments),
                "updated_at": .string("2024-03-0\(1 + number % 9)T00:00:00Z"),
            ])
        )
    }
}
