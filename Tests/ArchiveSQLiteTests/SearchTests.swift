import ArchiveTestSupport
import GRDB
import QueryLanguage
import QuickBlox
import Testing

@testable import ArchiveSQLite

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
        #expect(try await fixture.find("cafe") == [F.objectID(6), F.objectID(2)])
        #expect(try await fixture.find("café") == [F.objectID(6), F.objectID(2)])
        #expect(try await fixture.find("grusse") == [F.objectID(1)], "ß folds to ss, as upper case writes it")
        #expect(try await fixture.find("GRÜSSE") == [F.objectID(1)])
        #expect(try await fixture.find("grüße") == [F.objectID(1)])
        #expect(try await fixture.find("munchen") == [F.objectID(6), F.objectID(1)])
    }

    @Test func prefixSearch() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.find("mü*") == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.find("prä*") == [F.objectID(4)])
        #expect(try await fixture.find("pras*") == [F.objectID(4)])
    }

    @Test func substringSearchIsCaseInsensitiveAndFindsPunctuation() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.find(#"message ctn "++ vs""#) == [F.objectID(3)])
        #expect(try await fixture.find(#"message ctn "ünch""#) == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.find(#"message ctn "ÜNCH""#) == [F.objectID(6), F.objectID(1)])
        #expect(try await fixture.find(#"message ctn "räsentat""#) == [F.objectID(4)])
        #expect(try await fixture.find(#"message ctn "rtig 🎉""#) == [F.objectID(4)])
        #expect(try await fixture.find(#"message ctn "say \"hi\"""#).isEmpty, "quotes are taken literally")
        #expect(try await fixture.find(#"message ctn "C#""#) == [F.objectID(3)], "under 3 characters: a scan")
    }

    @Test func limitKeepsTheNewest() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.find("münchen", limit: 1) == [F.objectID(6)])
    }

    @Test func tombstonedMessagesStayFindable() async throws {
        let fixture = try await seeded()
        #expect(try await fixture.archive.tombstoneMessages(ids: [F.objectID(3)], at: F.baseTime + 999) == 1)
        let hits = try await fixture.archive.search(try QueryParser(now: F.baseTime).parse(#"message ctn "C++""#))
        #expect(hits.map(\.message.id) == [F.objectID(3)])
        #expect(hits.first?.message.deletedAt == F.baseTime + 999)
        #expect(try await fixture.find("nehmen") == [F.objectID(3)])
        try await expectIndexesConsistent(fixture.sqlite)
    }
}
