import QuickBlox
import Testing

@testable import Crawler

/// The order dialogs are crawled and claimed in: the most unread messages first (the only size the listing
/// gives), otherwise as listed — so the longest walks start first and no long dialog is left for last.
@Suite("Crawl order")
struct CrawlOrderTests {
    static func target(_ id: String, unread: Int?) -> Crawl.Target {
        let dialog = Dialog(
            id: id, type: .group, name: id, userID: 1, occupantIDs: [1, 2], createdAt: 0, updatedAt: 0,
            unreadMessagesCount: unread)
        return Crawl.Target(dialog: dialog, raw: .null, reader: 1)
    }

    @Test("Most unread first; ties and unknown counts keep the listing's order", arguments: 0..<20)
    func order(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed))
        let unread = (0..<30).map { _ -> Int? in
            let roll = random.next() % 5
            return roll == 0 ? nil : Int(random.next() % 4) * 100
        }
        let targets = unread.enumerated().map { Self.target("d\($0.offset)", unread: $0.element) }
        let ordered = Crawl.Target.crawlOrder(targets)
        // A permutation: nothing dropped or repeated.
        #expect(ordered.map(\.dialog.id).sorted() == targets.map(\.dialog.id).sorted())
        // Non-increasing unread counts (none counts as 0), and the listing's order among equals.
        let position = Dictionary(uniqueKeysWithValues: targets.enumerated().map { ($0.element.dialog.id, $0.offset) })
        for (left, right) in zip(ordered, ordered.dropFirst()) {
            let (a, b) = (left.dialog.unreadMessagesCount ?? 0, right.dialog.unreadMessagesCount ?? 0)
            #expect(a >= b)
            if a == b { #expect(position[left.dialog.id]! < position[right.dialog.id]!) }
        }
    }
}
