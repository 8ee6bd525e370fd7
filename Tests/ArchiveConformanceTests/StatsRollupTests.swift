import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// The statistics roll-ups against the reference: the same report read from every message.
///
/// A random history of writes — pages of new and edited messages (senders, days, hours, attachment types),
/// tombstones, erasures of messages, people and dialogs, retention, reconcile counts, dialogs changing type —
/// with refreshes at random moments; after each step, every figure of the whole-archive report (three bucket
/// lengths) read with the roll-ups equals the report read from the messages, and so does a report with a query,
/// whose dialogs' coverage (every message of each dialog, not only the matches) the roll-ups answer.
@Suite("Stats roll-ups: whole-archive figures equal the figures read from every message")
struct StatsRollupTests {
    static let start = 1_709_510_400  // Monday 2024-03-04

    @Test(arguments: TestBackend.all, [1, 2, 3] as [UInt64])
    func rollupsEqualTheMessagesAfterEveryStep(backend: TestBackend, seed: UInt64) async throws {
        try await History.withArchive(backend, seed: seed) { archive, history in

            var rolled = 0
            for step in 0..<60 {
                let action = try await history.step(archive, at: Self.start + 100 * step)
                let request = StatisticsRequest(
                    bucket: StatisticsRequest.Bucket.allCases[step % 3], top: 1 + step % 4)
                var reference = request
                reference.readsRollups = false
                let expected = try await archive.statistics(reference)
                let actual = try await archive.statistics(request)
                #expect(Self.differences(actual, expected) == [], "step \(step) (\(action)), \(backend)")
                if actual != expected { break }
                var filtered = request
                filtered.query = try Self.queries[step % Self.queries.count]
                var filteredReference = filtered
                filteredReference.readsRollups = false
                let filteredExpected = try await archive.statistics(filteredReference)
                let filteredActual = try await archive.statistics(filtered)
                #expect(
                    Self.differences(filteredActual, filteredExpected) == [],
                    "step \(step) (\(action)), \(filtered.query?.source ?? ""), \(backend)")
                #expect(filteredActual.coverage.count <= actual.coverage.count)
                if action == "refresh" { rolled += 1 }
            }
            #expect(rolled >= 5, "the history refreshed the roll-ups often enough to be read")
            // Refreshed from scratch: the same figures again.
            try await archive.settleAfterBulkChange()
            var reference = StatisticsRequest()
            reference.readsRollups = false
            let refreshed = try await archive.statistics(StatisticsRequest())
            #expect(Self.differences(refreshed, try await archive.statistics(reference)) == [])
        }
    }

    /// Pages stored while refreshes run (on PostgreSQL, on other connections: a refresh's snapshot misses the
    /// pages committed after it began) are never lost: each keeps its dialog stale until a refresh has seen it.
    @Test(arguments: TestBackend.all)
    func pagesStoredWhileRefreshesRunCountOnce(backend: TestBackend) async throws {
        try await History.withArchive(backend, seed: 11) { archive, history in
            var reference = StatisticsRequest()
            reference.readsRollups = false
            for round in 0..<8 {
                let pages = (0..<12).map { history.page(at: Self.start + 1000 * round + $0) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for _ in 0..<4 { try await archive.settleAfterBulkChange() }
                    }
                    group.addTask {
                        for (index, page) in pages.enumerated() {
                            try await archive.storeMessages(
                                dialogID: page.dialogID, rawItems: page.messages.map(\.json), cursor: nil,
                                at: Self.start + 1000 * round + index)
                        }
                    }
                    try await group.waitForAll()
                }
                let expected = try await archive.statistics(reference)
                #expect(
                    Self.differences(try await archive.statistics(StatisticsRequest()), expected) == [],
                    "round \(round)")
                try await archive.settleAfterBulkChange()
                #expect(
                    Self.differences(try await archive.statistics(StatisticsRequest()), expected) == [],
                    "round \(round)")
            }
        }
    }

    /// After a first crawl or an import every dialog is stale: more than `StatsShares.fewStale` (64) are tested
    /// as a join on PostgreSQL, not as a list of their ids (the list, tested on each message read, made the
    /// refresh after a crawl of 1M messages take minutes). The figures are those read from every message, then
    /// again once a few dialogs have changed (a list).
    @Test(arguments: TestBackend.all)
    func manyStaleDialogsRefreshToTheSameFigures(backend: TestBackend) async throws {
        try await History.withArchive(backend, seed: 5, dialogCount: 80) { archive, history in
            var reference = StatisticsRequest()
            reference.readsRollups = false
            for (index, dialog) in history.dialogs.enumerated() {
                let page = history.page(at: Self.start + index, in: dialog)
                try await archive.storeMessages(
                    dialogID: page.dialogID, rawItems: page.messages.map(\.json), cursor: nil, at: Self.start + index)
            }
            try await archive.settleAfterBulkChange()
            let all = try await archive.statistics(reference)
            #expect(all.messages > 80)
            #expect(Self.differences(try await archive.statistics(StatisticsRequest()), all) == [])
            for step in 0..<30 {
                _ = try await history.step(archive, at: Self.start + 1000 + 100 * step)
            }
            try await archive.settleAfterBulkChange()
            #expect(
                Self.differences(
                    try await archive.statistics(StatisticsRequest()), try await archive.statistics(reference))
                    == [])
        }
    }

    /// Queries for the filtered reports: people, dialog types, attachments, words, negations, dates.
    static var queries: [Query] {
        get throws {
            let parser = QueryParser(now: start + 10 * 86_400)
            return try [
                "sender_id = 2", "dialog_type:group", "has:attachment", "edited", "NOT sender_id = 1 message",
                "date_sent < \(start + 86_400)", "nothing-matches-this",
            ].map { try parser.parse($0) }
        }
    }

    /// The figures that differ, each as `name: actual ≠ expected` (a whole report is too long to read).
    static func differences(_ actual: ArchiveStatistics, _ expected: ArchiveStatistics) -> [String] {
        zip(Mirror(reflecting: actual).children, Mirror(reflecting: expected).children).compactMap { mine, theirs in
            let (a, b) = (String(describing: mine.value), String(describing: theirs.value))
            return a == b ? nil : "\(mine.label ?? "?"): \(a) ≠ \(b)"
        }
    }
}

/// A random history of an archive's writes, drawn from a seed.
struct History {
    var random: SeededRandom
    var dialogs: [Dialog]
    var messages: [String: Message] = [:]
    var next = 1

    /// An archive on `backend` in a folder of its own (removed after `body`) holding the history's users and
    /// dialogs, stored at ``StatsRollupTests/start``.
    static func withArchive(
        _ backend: TestBackend, seed: UInt64, dialogCount: Int = 8,
        _ body: (any ArchiveWriter, inout History) async throws -> Void
    ) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var history = History(seed: seed, dialogCount: dialogCount)
        let archive = try await backend.create(directory.path, StatsRollupTests.start)
        try await archive.storeUsers(rawItems: (1...6).map { user($0).json }, at: StatsRollupTests.start)
        try await archive.storeDialogs(rawItems: history.dialogs.map(\.json), at: StatsRollupTests.start)
        try await body(archive, &history)
    }

    /// `dialogCount` dialogs, of every eight four private, three groups and a public group.
    init(seed: UInt64, dialogCount: Int = 8) {
        random = SeededRandom(seed: seed)
        dialogs = (1...dialogCount).map { number in
            let kind = (number - 1) % 8 + 1
            let type: DialogType = kind <= 4 ? .private : kind <= 7 ? .group : .publicGroup
            let occupants = type == .private ? [number % 3 + 1, number % 3 + 4] : [1, 2, 3, 4, 5, 6]
            return Dialog(
                id: Self.id(0xD00 + number), type: type, name: type == .private ? nil : "room \(number)",
                userID: occupants[0], occupantIDs: occupants, createdAt: 0, updatedAt: 0)
        }
    }

    static func id(_ number: Int) -> String {
        let hex = String(number, radix: 16)
        return String(repeating: "0", count: 24 - hex.count) + hex
    }

    static func user(_ id: Int) -> User {
        User(id: id, login: "user\(id)", fullName: "User \(id)", createdAt: 0, updatedAt: 0)
    }

    /// Runs one random write; returns its name.
    mutating func step(_ archive: any ArchiveWriter, at time: Int) async throws -> String {
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<40:
            try await storePage(archive, at: time)
            return "page"
        case 40..<48:
            let ids = pick(Int.random(in: 1...3, using: &random))
            _ = try await archive.tombstoneMessages(ids: ids, at: time)
            return "tombstone"
        case 48..<54:
            let dialog = dialogs.randomElement(using: &random)!
            try await archive.recordServerCount(
                dialogID: dialog.id, count: Int.random(in: 0...30, using: &random), at: time)
            return "reconcile count"
        case 54..<58:
            guard let id = pick(1).first else { return "nothing" }
            _ = try await archive.erase(.message(id: id), reason: "test", dryRun: false, holdsSeen: nil, at: time)
            return "erase a message"
        case 58..<60:
            _ = try await archive.erase(
                .user(String(Int.random(in: 1...6, using: &random))), reason: "test", dryRun: false, holdsSeen: nil,
                at: time)
            return "erase a person"
        case 60..<62:
            let dialog = dialogs.randomElement(using: &random)!
            _ = try await archive.erase(.dialog(id: dialog.id), reason: "test", dryRun: false, holdsSeen: nil, at: time)
            return "erase a dialog"
        case 62..<64:
            let before = StatsRollupTests.start + Int.random(in: 0...(3 * 86_400), using: &random)
            _ = try await archive.erase(
                .sentBefore(before, keeping: []), reason: "retention", dryRun: false, holdsSeen: nil, at: time)
            return "retention"
        case 64..<70:
            let index = Int.random(in: 0..<dialogs.count, using: &random)
            dialogs[index].type = dialogs[index].type == .private ? .group : .private
            dialogs[index].updatedAt = time
            try await archive.storeDialogs(rawItems: [dialogs[index].json], at: time)
            return "dialog type"
        case 70..<75:
            _ = try await archive.tombstoneDialog(id: dialogs.randomElement(using: &random)!.id, at: time)
            return "tombstone a dialog"
        default:
            try await archive.settleAfterBulkChange()
            return "refresh"
        }
    }

    private mutating func storePage(_ archive: any ArchiveWriter, at time: Int) async throws {
        let (dialogID, page) = page(at: time)
        try await archive.storeMessages(dialogID: dialogID, rawItems: page.map(\.json), cursor: nil, at: time)
    }

    /// A page of new messages and edits of earlier ones, in one dialog (`chosen`, else one at random).
    mutating func page(at time: Int, in chosen: Dialog? = nil) -> (dialogID: String, messages: [Message]) {
        let dialog = chosen ?? dialogs.randomElement(using: &random)!
        var page: [Message] = []
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let earlier = messages.values.filter { $0.chatDialogID == dialog.id }
            if let edited = earlier.randomElement(using: &random), Bool.random(using: &random) {
                var message = edited
                message.text = "edited at \(time) \(Int.random(in: 0...9, using: &random))"
                message.updatedAt = time
                if Int.random(in: 0..<4, using: &random) == 0 { message.attachments = attachments() }
                page.removeAll { $0.id == message.id }
                page.append(message)
                messages[message.id] = message
                continue
            }
            // Few distinct seconds, so several messages share an instant (ties broken by id).
            let sent =
                StatsRollupTests.start + Int.random(in: 0...5, using: &random) * 86_400 / 2
                + Int.random(in: 0...20, using: &random) * 900
            let sender: Int? =
                Int.random(in: 0..<12, using: &random) == 0 ? nil : dialog.occupantIDs.randomElement(using: &random)
            let message = Message(
                id: History.id(0x100000 + next), chatDialogID: dialog.id, text: "message \(next)", dateSent: sent,
                senderID: sender, recipientID: nil, attachments: attachments(), createdAt: sent, updatedAt: sent)
            next += 1
            page.append(message)
            messages[message.id] = message
        }
        return (dialog.id, page)
    }

    private mutating func attachments() -> [QuickBlox.Attachment] {
        (0..<[0, 0, 0, 1, 2].randomElement(using: &random)!).map { index in
            QuickBlox.Attachment(
                type: ["image", "file", "video"].randomElement(using: &random)!, id: "a\(next)-\(index)")
        }
    }

    private mutating func pick(_ count: Int) -> [String] {
        let ids = messages.keys.sorted()
        guard !ids.isEmpty else { return [] }
        return (0..<count).map { _ in ids.randomElement(using: &random)! }
    }
}
