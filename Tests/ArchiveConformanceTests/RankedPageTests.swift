import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Ranked pages (`--sort rank`) of words, alone or beside other conditions, are read in two steps — the best keys
/// and scores, then the page's rows — or, with their total beside other conditions on SQLite, collected in one
/// pass; the whole ranking is one statement's sort: every page, at every offset, with or without its total, must
/// be the same messages in the same order as that sort's slice. The archive is built for ties:
/// texts from a handful of words (many equal scores) sent in a few seconds (many messages per second), with ids
/// in no relation to the order the archive stored them in.
@Suite("Search differential, ranked pages")
struct RankedPageTests {
    @Test(arguments: TestBackend.all, [11, 12] as [UInt64])
    func everyRankedPageIsASliceOfTheWholeRanking(backend: TestBackend, seed: UInt64) async throws {
        let directory = NSTemporaryDirectory() + "qbarchive-ranked-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SeededRandom(seed: seed)
        let archive = try await Self.archive(in: directory, backend: backend, &random)
        var checked = 0
        for root in Self.queries {
            let query = Query(source: "", root: root)
            // Deeper than any two-step page: the whole ranking, sorted by one statement.
            let whole = try await archive.search(query, options: SearchOptions(limit: 5_000, sort: .rank))
                .map(\.message.id)
            #expect(whole.count == (try await archive.count(query)), "\(root)")
            #expect(Set(whole).count == whole.count, "a message listed twice for \(root)")
            for _ in 0..<8 {
                let limit = 1 + Int(random.next() % 9)
                let offset = Int(random.next() % UInt64(whole.count + 3))
                let page = try await archive.search(
                    query, options: SearchOptions(limit: limit, offset: offset, sort: .rank))
                #expect(
                    page.map(\.message.id) == Array(whole.dropFirst(offset).prefix(limit)),
                    "\(root) limit \(limit) offset \(offset)")
                let total = try await archive.searchPage(
                    query, options: SearchOptions(limit: limit, offset: offset, sort: .rank), zone: .gmt)
                #expect(total.hits.map(\.message.id) == page.map(\.message.id))
                #expect(total.total == whole.count)
            }
            if whole.count > 20 { checked += 1 }
        }
        #expect(checked >= 8)
    }

    /// Words, phrases, prefixes, alternatives, several words, an exclusion and periods of the sending date.
    static let queries: [QueryExpression] = {
        func word(_ text: String) -> QueryExpression { .text(TextTerm(kind: .word, text: text, range: 0..<1)) }
        func after(_ seconds: Int) -> QueryExpression {
            .predicate(
                QueryPredicate(
                    field: .dateSent, op: .greaterThanOrEqual,
                    values: [.period(start: start + seconds, end: start + seconds + 1)],
                    range: 0..<1))
        }
        func dialog(_ op: FilterOperator, _ indexes: Int...) -> QueryExpression {
            .predicate(
                QueryPredicate(
                    field: .dialog, op: op, values: indexes.map { .string(SearchCorpus.objectID(0xD00 + $0)) },
                    range: 0..<1))
        }
        return [
            word("refund"), word("money"), word("scam"),
            // Beside other conditions: the hits' rows are tested (and, with the total, collected).
            .and([word("money"), dialog(.equal, 0)]),
            .and([dialog(.in, 0, 2), .or([word("scam"), word("pay")])]),
            .and([word("refund"), .not(dialog(.equal, 1)), .not(word("hello"))]),
            .and([.text(TextTerm(kind: .prefix, text: "he", range: 0..<1)), dialog(.notEqual, 2), after(1)]),
            // Not every match has a score: the one-statement plan.
            .or([word("scam"), dialog(.equal, 1)]),
            .text(TextTerm(kind: .phrase, text: "refund money", range: 0..<1)),
            .text(TextTerm(kind: .prefix, text: "re", range: 0..<1)),
            .or([word("scam"), word("hello")]),
            .and([word("refund"), word("money")]),
            .and([word("money"), .not(word("hello"))]),
            .and([word("refund"), after(2)]),
            .and([after(1), .or([word("pay"), word("money")])]),
            .and([word("hello"), word("pay"), .not(word("scam")), after(3)]),
        ]
    }()

    static let start = 1_709_294_400
    static let words = ["refund", "money", "hello", "scam", "pay"]

    /// 400 messages in three dialogs, each one to four of ``words``, sent within six seconds; ids random.
    static func archive(
        in directory: String, backend: TestBackend, _ random: inout SeededRandom
    ) async throws -> any ArchiveWriter {
        let archive = try await backend.create(directory, start)
        let dialogs = (0..<3).map { index in
            Dialog(
                id: SearchCorpus.objectID(0xD00 + index), type: .group, name: "Room \(index)", userID: 1,
                occupantIDs: [1, 2], createdAt: start - 86_400, updatedAt: start)
        }
        try await archive.storeDialogs(rawItems: dialogs.map(\.json), at: start)
        var ids = Set<String>()
        while ids.count < 400 { ids.insert(SearchCorpus.objectID(Int(random.next() % 0xFF_FFFF_FFFF))) }
        var messages: [String: [Message]] = [:]
        for id in ids.sorted() {
            let dialog = dialogs[Int(random.next() % 3)]
            let text = (0..<1 + Int(random.next() % 4)).map { _ in words[Int(random.next() % 5)] }
                .joined(separator: " ")
            let sent = start + Int(random.next() % 6)
            messages[dialog.id, default: []].append(
                Message(
                    id: id, chatDialogID: dialog.id, text: text, dateSent: sent, senderID: 1, recipientID: nil,
                    createdAt: sent, updatedAt: sent))
        }
        for (dialog, page) in messages {
            // Stored in an order of their own (shuffled), so that keys within a second are not in id order.
            var shuffled = page
            shuffled.shuffle(using: &random)
            try await archive.storeMessages(dialogID: dialog, rawItems: shuffled.map(\.json), cursor: nil, at: start)
        }
        return archive
    }
}
