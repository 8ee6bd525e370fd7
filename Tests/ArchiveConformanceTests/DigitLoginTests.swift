import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// Logins made of digits (apps often use a phone number): bare digits are a user id when the archive knows that
/// id, else the user whose login they are; in quotes they are a login. A legal hold pins them to the id found.
@Suite("Logins made of digits, in queries")
struct DigitLoginTests {
    static let parser = QueryParser(now: SearchCorpus.baseTime)

    func ids(_ archive: any ArchiveWriter, _ text: String) async throws -> Set<String> {
        let query = try Self.parser.parse(text)
        let hits = try await archive.search(query, options: SearchOptions(limit: 10_000))
        #expect(try await archive.count(query) == hits.count, "\(text)")
        return Set(hits.map(\.message.id))
    }

    @Test(arguments: TestBackend.all) func digitsAreAKnownIdElseALogin(backend: TestBackend) async throws {
        let corpus = try await SearchCorpus.make(seed: 31, count: 120, backend: backend)
        defer { corpus.remove() }
        let archive = corpus.archive
        let base = SearchCorpus.baseTime
        // User 8's login is a phone number no user has as an id; user 9's login is "3", which user 3 has as id.
        let phone = User(id: 8, login: "447700900123", fullName: "Phone Person", createdAt: 0, updatedAt: 0)
        let three = User(id: 9, login: "3", fullName: "Login Three", createdAt: 0, updatedAt: 0)
        try await archive.storeUsers(rawItems: [phone.json, three.json], at: base)
        let dialog = corpus.entries[0].dialog
        let fromPhone = SearchCorpus.objectID(9_001)
        let fromNine = SearchCorpus.objectID(9_002)
        let messages = [
            Message(
                id: fromPhone, chatDialogID: dialog.id, text: "call me back", dateSent: base + 1, senderID: 8,
                recipientID: nil, createdAt: base + 1, updatedAt: base + 1),
            Message(
                id: fromNine, chatDialogID: dialog.id, text: "call me later", dateSent: base + 2, senderID: 9,
                recipientID: nil, createdAt: base + 2, updatedAt: base + 2),
        ]
        try await archive.storeMessages(dialogID: dialog.id, rawItems: messages.map(\.json), cursor: nil, at: base)
        let byThree = Set(corpus.entries.filter { $0.message.senderID == 3 }.map(\.message.id))
        #expect(!byThree.isEmpty)

        // Digits no user has as id: the user whose login they are, however the filter is written.
        for text in [
            "from:447700900123", "from:\"447700900123\"", "sender_id = 447700900123", "sender_id[in]=447700900123",
            "from:447700900123 call",
        ] {
            #expect(try await ids(archive, text) == [fromPhone], "\(text)")
        }
        #expect(try await ids(archive, "sender_id in (447700900123, 9)") == [fromPhone, fromNine])
        #expect(try await !ids(archive, "-from:447700900123").contains(fromPhone))
        // Digits that are an id the archive knows: that id, as the summary says; quoted: the login.
        #expect(try await ids(archive, "from:3") == byThree)
        #expect(try await ids(archive, "from:\"3\"") == [fromNine])
        #expect(
            try await archive.describe(try Self.parser.parse("from:447700900123"), zone: QueryDate.utc)
                == "sender is 447700900123 (Phone Person, user 8)")
        #expect(
            try await archive.describe(try Self.parser.parse("from:3"), zone: QueryDate.utc)
                == "sender is user3 (User 3, user 3)")
        // A hold pins what was found: the login's id; a known id stays as typed.
        #expect(
            try await archive.pinningNames(try Self.parser.parse("from:447700900123 call"))
                == "(sender_id in (8)) call")
        #expect(try await archive.pinningNames(try Self.parser.parse("from:\"3\"")) == "(sender_id in (9))")
        #expect(try await archive.pinningNames(try Self.parser.parse("from:3 call")) == "from:3 call")
        // Digits that are neither: refused, naming both readings.
        do {
            _ = try await archive.search(try Self.parser.parse("from:447700900999"))
            Issue.record("an unknown number ran")
        } catch let error as QueryError {
            #expect(
                error.message == "no archived user has the id or login 447700900999, and no archived message names it")
        }
    }
}
