import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import Service
import Testing

/// The JSON API and the web UI list saved queries by one policy: none without their directory, and a query that
/// cannot be read shown as a fault (named, without the directory's path or the file's bytes), never as an empty list.
@Suite("Saved queries listed by one policy", .serialized)
struct SavedQueryListingTests {
    @Test func anUnreadableSavedQueryIsAFaultInBothInterfaces() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        // Not UTF-8: unreadable even for root, who reads a file whatever its mode.
        let secret = Data([0x73, 0x65, 0x63, 0x72, 0x65, 0x74, 0xFF, 0xFE])
        try secret.write(to: URL(fileURLWithPath: fixture.queriesDirectory + "/broken.qbq"))
        try await fixture.serve { client in
            let listed = try await client.execute(uri: "/api/queries", method: .get)
            #expect(listed.status == .internalServerError)
            #expect(try listed.json["error"]?["code"] == .string("saved_queries"))
            #expect(listed.text.contains("@broken"))
            #expect(!listed.text.contains(fixture.queriesDirectory))
            #expect(!listed.text.contains("secret"))

            let page = try await client.execute(uri: "/search?q=wire", method: .get)
            #expect(page.status == .ok)  // the search itself still answers
            #expect(page.text.contains("<strong id=\"result-count\">"))
            #expect(page.text.contains("Saved queries cannot be listed: <bdi>"))
            #expect(page.text.contains("@broken"))
            #expect(!page.text.contains("No saved queries in the queries directory."))
            #expect(!page.text.contains(fixture.queriesDirectory))
            #expect(!page.text.contains("secret"))

            // The readable saved query next to it still runs by name.
            let saved = try await client.execute(uri: "/api/search?q=@refunds", method: .get)
            #expect(saved.status == .ok)
        }
    }

    @Test(arguments: [false, true])
    func withoutTheDirectoryBothListNone(_ removed: Bool) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        if removed { try FileManager.default.removeItem(atPath: fixture.queriesDirectory) }
        try await fixture.serve { client in
            let listed = try await client.execute(uri: "/api/queries", method: .get)
            #expect(listed.status == .ok)
            let names = try listed.json["queries"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
            #expect(names == (removed ? [] : ["refunds"]))

            let page = try await client.execute(uri: "/search", method: .get).text
            #expect(page.contains("No saved queries in the queries directory.") == removed)
            #expect(page.contains("href=\"/search?q=%40refunds\"") == !removed)
            #expect(!page.contains("Saved queries cannot be listed"))

            // Without the directory, a saved query named in a search is refused as unknown, not answered with nothing.
            let search = try await client.execute(uri: "/api/search?q=@refunds", method: .get)
            #expect(search.status == (removed ? .badRequest : .ok))
            if removed { #expect(try search.json["error"]?["code"] == .string("unknown_saved_query")) }
        }
    }
}
