import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

@testable import ArchiveSQLite

/// Inputs `make chaos` found mishandled: text with U+0000, queries past SQLite's limits.
@Suite("Hostile text and queries")
struct HostileInputTests {
    typealias F = ArchiveFixture

    @Test func textAfterANulIsKeptSearchableAndExported() async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([F.message(1, text: "visible before\u{0}hidden after", offset: 1)])
        #expect(try await fixture.find("hidden") == [F.objectID(1)])
        #expect(try await fixture.find("message ctn \"hidden after\"") == [F.objectID(1)])
        let stored = try await fixture.archive.messages(dialogID: F.dialogID).first
        #expect(stored?.text == "visible before\u{FFFD}hidden after")
        #expect(stored?.raw.contains("\\u0000") == true)  // the server's record as it was sent
        // Crawling the same message again is not an edit.
        let again = try await fixture.write([F.message(1, text: "visible before\u{0}hidden after", offset: 1)])
        #expect(again.edited == 0)
    }

    /// Queries built in code (the parser caps text at 4 KB, so typed queries cannot get this far) that pass
    /// SQLite's limits once compiled are positioned errors, never raw database errors.
    @Test(arguments: [(#"message ctn "the""#, 600), ("sender_id > 1", 1200)])
    func queriesPastSQLiteLimitsArePositionedErrors(term: String, count: Int) async throws {
        let fixture = try await ArchiveFixture()
        try await fixture.write([F.message(1, text: "the end", offset: 1)])
        let one = try QueryParser(now: F.baseTime).parse(term).root
        let source = Array(repeating: term, count: count).joined(separator: " or ")
        let query = Query(source: source, root: .or(Array(repeating: one, count: count)))
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try await fixture.archive.search(query)
                } else {
                    _ = try await fixture.archive.count(query)
                }
                Issue.record("a query of \(count) alternatives ran")
            } catch let error as QueryError {
                #expect(error.message.hasPrefix("the query is too complex"))
                #expect(error.position == 0 && error.length == source.count)
            }
        }
    }

    @Test(arguments: [
        Array(repeating: #"message ctn "the""#, count: 600).joined(separator: " or "),
        Array(repeating: "sender_id = 1", count: 1200).joined(separator: " or "),
    ])
    func typedQueriesThatLongAreRefusedAtTheLengthCap(source: String) throws {
        #expect(throws: QueryError.self) { try QueryParser(now: F.baseTime).parse(source) }
        do {
            _ = try QueryParser(now: F.baseTime).parse(source)
        } catch {
            #expect(error.position == QueryParser.maximumLength)
        }
    }
}
