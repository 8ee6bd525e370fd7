import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

/// A saved-query name must never read a file outside the listed queries, and no answer may carry a file's
/// content or the folder's path, on any route that takes a query.
@Suite("Saved-query names cannot read files (every route that takes a query)", .serialized)
struct SavedQueryLeakTests {
    static let secret = "SIGNING-KEY-7f3a9c-DO-NOT-LEAK"
    static let outsideQuery = "OUTSIDEQUERYWORD"

    /// Names that try to leave the queries folder, percent-encoded as a client would send them: `..`, `/`,
    /// absolute paths, NUL, double encoding, backslashes, and a valid name followed by junk.
    static let hostileNames = [
        "@../keys/signer%00", "@../keys/signer", "@../outside", "@..%2Foutside", "@..%252Foutside",
        "@%2E%2E/outside", "@/etc/passwd", "@/etc/passwd%00", "@....//outside", "@..%5Coutside", "@keys/signer",
        "@../../../../../../proc/self/environ%00", "@refunds%00", "@refunds/../../outside", "@%00",
        "@refunds.qbq", "@-refunds", "@" + String(repeating: "a", count: 65), "@refunds%0A",
    ]

    /// Puts a secret "key" and a `.qbq` file outside the queries folder, next to it.
    static func plantSecrets(_ fixture: ServiceFixture) throws {
        try FileManager.default.createDirectory(atPath: fixture.path("keys"), withIntermediateDirectories: true)
        try (secret + "\n").write(toFile: fixture.path("keys/signer"), atomically: true, encoding: .utf8)
        try (secret + "\n").write(toFile: fixture.path("keys/signer.qbq"), atomically: true, encoding: .utf8)
        try (outsideQuery + "\n").write(toFile: fixture.path("outside.qbq"), atomically: true, encoding: .utf8)
        // A link inside the queries folder to a file outside is not a saved query either.
        try FileManager.default.createSymbolicLink(
            atPath: fixture.queriesDirectory + "/linked.qbq", withDestinationPath: fixture.path("keys/signer.qbq"))
    }

    /// What no answer may contain: the secret, the other query's text, the folder's path.
    static func expectNothingLeaks(_ text: String, fixture: ServiceFixture, _ what: String) {
        #expect(!text.contains(secret), "\(what) leaked the key")
        #expect(!text.contains(outsideQuery), "\(what) ran a query outside the folder")
        #expect(!text.contains(fixture.directory.path), "\(what) named the folder")
    }

    @Test func noRouteReadsAFileThroughASavedQueryName() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try Self.plantSecrets(fixture)
        try await fixture.serve { client in
            for name in Self.hostileNames + ["@linked"] {
                for uri in ["/api/search?q=\(name)", "/search?q=\(name)", "/api/stats?where=\(name)"] {
                    let response = try await client.execute(uri: uri, method: .get)
                    #expect(response.status == .badRequest, "\(uri) answered \(response.status)")
                    Self.expectNothingLeaks(response.text, fixture: fixture, uri)
                }
                // The transcript highlights what `q` finds: a bad name highlights nothing and reads nothing.
                let transcript = try await client.execute(
                    uri: "/dialogs/\(ServiceFixture.hostileDialogID)?q=\(name)", method: .get)
                #expect(transcript.status == .ok)
                Self.expectNothingLeaks(transcript.text, fixture: fixture, "transcript q=\(name)")
                let decoded = name.removingPercentEncoding ?? name
                let body = JSONValue.object(["where": .string(decoded)]).jsonString
                let export = try await client.execute(
                    uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: body))
                #expect(export.status == .badRequest, "export where \(name) answered \(export.status)")
                Self.expectNothingLeaks(export.text, fixture: fixture, "export where \(name)")
            }
            // The saved query that is listed still works, on every route.
            #expect(try await client.execute(uri: "/api/search?q=@refunds", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/api/stats?where=@refunds", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/search?q=%40refunds", method: .get).status == .ok)
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        for entry in entries { Self.expectNothingLeaks(entry.detail, fixture: fixture, "the audit log") }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: fixture.path("exports"))) ?? []).isEmpty)
    }

    @Test func anInvalidNameIsExplainedAndAnUnknownOneListsTheQueries() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try Self.plantSecrets(fixture)
        try await fixture.serve { client in
            let invalid = try await client.execute(uri: "/api/search?q=@../keys/signer%00", method: .get).json
            #expect(invalid["error"]?["code"] == .string("invalid_query"))  // the NUL is refused first
            let traversal = try await client.execute(uri: "/api/search?q=@../keys/signer", method: .get).json
            #expect(traversal["error"]?["code"] == .string("invalid_saved_query_name"))
            let unknown = try await client.execute(uri: "/api/search?q=@refundz", method: .get).json
            #expect(unknown["error"]?["code"] == .string("unknown_saved_query"))
            #expect(unknown["error"]?["message"]?.stringValue?.contains("@refunds") == true)
            #expect(unknown["error"]?["message"]?.stringValue?.contains("@linked") == false)
        }
    }

    @Test(arguments: [
        ("refund%00", 6), ("refund%1B%5B2J", 6), ("%7Frefund", 0), ("re%C2%9Bfund", 2), ("refund%09money", 6),
        ("refund%0Amoney", 6), ("refund%0D", 6),
    ])
    func controlCharactersAreRefusedWhereTheyAre(query: String, position: Int) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            for uri in ["/api/search?q=\(query)", "/api/stats?where=\(query)"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .badRequest)
                let error = try response.json["error"]
                #expect(error?["code"] == .string("invalid_query"))
                #expect(error?["position"] == .int(position))
                #expect(error?["message"]?.stringValue?.contains("control character") == true)
                // Echoed as visible pictures, never as the control character itself.
                let echoed = error?["query"]?.stringValue ?? ""
                #expect(!echoed.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            }
            let page = try await client.execute(uri: "/search?q=\(query)", method: .get)
            #expect(page.status == .badRequest && page.text.contains("control character"))
        }
    }
}
