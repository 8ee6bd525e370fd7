import GRDB
import QuickBlox
import Testing

@testable import ArchiveStore

@Suite("Full-text search")
struct SearchTests {
    typealias F = ArchiveFixture

    /// An archive with a few realistic messages, numbered 1...6.
    private func seeded() async throws -> ArchiveFixture {
        let fixture = try await ArchiveFixture()
        try await fixture.write([
            F.message(1, text: "Grüße aus München!", offset: 1),
            F.message(2, text: "Treffen im Café um 8?", offset: 2),
            F.message(3, text: "C++ vs. C# – was nehmen wir?", offset: 3),
            F.message(4, text: "Die Präsentation ist fertig 🎉", offset: 4),
            F.message(5, text: nil, offset: 5, attachments: [.init(type: "image", id: "1")]),
            F.message(6, text: "MÜNCHEN calling: the CAFE is closed", offset: 6),
        ])
        return fixture
    }

    @Test func wordSearchIgnoresDiacriticsAndCase() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.searchWords("cafe").map(\.id) == [F.objectID(6), F.objectID(2)])
        #expect(try await fixture.archive.searchWords("café").map(\.id) == [F.objectID(6), F.objectID(2)])
        #expect(try await fixture.archive.searchWords("grusse").isEmpty, "ß is a letter of its own, not ss")
        #expect(try await fixture.archive.searchWords("grüße").map(\.id) == [F.objectID(1)])
        #expect(try await fixture.archive.searchWords("munchen").map(\.id) == [F.objectID(6), F.objectID(1)])
    }

    @Test func prefixSearch() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.searchWords("mü*").map(\.id) == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.archive.searchWords("prä*").map(\.id) == [F.objectID(4)])
        #expect(try await fixture.archive.searchWords("pras*").map(\.id) == [F.objectID(4)])
    }

    @Test func substringSearchIsCaseInsensitiveAndFindsPunctuation() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.searchSubstring("++ vs").map(\.id) == [F.objectID(3)])
        #expect(try await fixture.archive.searchSubstring("ünch").map(\.id) == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.archive.searchSubstring("ÜNCH").map(\.id) == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.archive.searchSubstring("räsentat").map(\.id) == [F.objectID(4)])
        #expect(try await fixture.archive.searchSubstring("rtig 🎉").map(\.id) == [F.objectID(4)])
        #expect(try await fixture.archive.searchSubstring("say \"hi\"").isEmpty, "quotes are taken literally")
        await #expect(throws: ArchiveError.substringTooShort("C#")) {
            try await fixture.archive.searchSubstring("C#")
        }
    }

    @Test func limitKeepsTheNewest() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.searchWords("münchen", limit: 1).map(\.id) == [F.objectID(6)])
    }

    @Test func tombstonedMessagesStayFindable() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.tombstoneMessages(ids: [F.objectID(3)], at: F.baseTime + 999) == 1)
        let hits = try await fixture.archive.searchSubstring("C++")
        #expect(hits.map(\.id) == [F.objectID(3)])
        #expect(hits.first?.deletedAt == F.baseTime + 999)
        #expect(try await fixture.archive.searchWords("nehmen").map(\.id) == [F.objectID(3)])
        try await expectIndexesConsistent(fixture.archive)
    }
}
