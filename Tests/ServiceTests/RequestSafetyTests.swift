import ArchiveSQLite
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QueryLanguage
import QuickBlox
import Service
import Testing

/// Redirects after login, other sites' requests, oversized queries, the audit log's growth, logins,
/// proxies and the bearer scheme, over real HTTP.
@Suite("Service requests: redirects, cross-site, query size, audit growth, logins", .serialized)
struct RequestSafetyTests {
    static let token = "correct-horse-battery-staple-42"
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

    func login(_ client: some TestClientProtocol, next: String, headers: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var fields = Self.form
        fields.append(contentsOf: headers)
        return try await client.execute(
            uri: "/login", method: .post, headers: fields,
            body: .init(string: "name=alice&token=\(Self.token)&next=\(next)"))
    }

    @Test func afterLoginOnlyALocalPathIsFollowed() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        // `next` as sent in the form (percent-encoded), and where the login must send the browser.
        let cases: [(String, String)] = [
            ("%2F%09%2Fevil.example", "/"), ("%2F%2Fevil.example", "/"), ("%2F%5Cevil.example", "/"),
            ("%2F%0A%2Fevil.example", "/"), ("%2F%0D%2Fevil.example", "/"), ("https%3A%2F%2Fevil.example", "/"),
            ("javascript%3Aalert(1)", "/"), ("evil.example", "/"), ("%2F%20%2Fevil.example", "/"),
            ("%2F%E2%80%AE%2Fevil", "/"), ("%2F%00", "/"), ("%2F" + String(repeating: "a", count: 2100), "/"),
            ("", "/"), ("%2Fsearch%3Fq%3Drefund%26sort%3Ddate", "/search?q=refund&sort=date"),
            ("%2Fdialogs%2Fabc%3Faround%3Dx%23m-x", "/dialogs/abc?around=x#m-x"), ("%2F", "/"),
        ]
        try await fixture.serve(token: Self.token) { client in
            for (next, expected) in cases {
                let response = try await login(client, next: next)
                #expect(response.headers[.location] == expected, "next=\(next.prefix(40))")
            }
            let page = try await client.execute(uri: "/login?next=%2F%09%2Fevil.example", method: .get)
            #expect(page.text.contains("name=\"next\" value=\"/\""))
        }
    }

    @Test func requestsFromOtherSitesAreRefusedWithoutWork() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let site = HTTPField.Name("Sec-Fetch-Site")!
        let mode = HTTPField.Name("Sec-Fetch-Mode")!
        let dest = HTTPField.Name("Sec-Fetch-Dest")!
        let json: HTTPFields = [.contentType: "application/json"]
        try await fixture.serve { client in
            for value in ["cross-site", "same-site", "CROSS-SITE"] {
                let api = try await client.execute(uri: "/api/search?q=refund", method: .get, headers: [site: value])
                #expect(api.status == .forbidden)
                #expect(try api.json["error"]?["code"] == .string("cross_site_request"))
                var post = json
                post[site] = value
                let export = try await client.execute(
                    uri: "/api/exports", method: .post, headers: post, body: ByteBuffer(string: "{}"))
                #expect(export.status == .forbidden)
            }
            for origin in [
                "http://evil.example", "null", "http://127.0.0.1.evil.example", "file://", "http://localhost:1",
            ] {
                var post = json
                post[.origin] = origin
                let export = try await client.execute(
                    uri: "/api/exports", method: .post, headers: post, body: ByteBuffer(string: "{}"))
                #expect(export.status == .forbidden, "Origin \(origin)")
                let page = try await client.execute(uri: "/search?q=refund", method: .get, headers: [.origin: origin])
                #expect(page.status == .forbidden)
            }
            // A link followed from another site: a page that does nothing but offer the same link.
            let navigation = try await client.execute(
                uri: "/search?q=refund", method: .get,
                headers: [site: "cross-site", mode: "navigate", dest: "document"])
            #expect(navigation.status == .forbidden)
            #expect(navigation.text.contains("href=\"/search?q=refund\""))
            #expect(!navigation.text.contains("id=\"results\""))
            let offsite = try await client.execute(
                uri: "//evil.example/x", method: .get,
                headers: [site: "cross-site", mode: "navigate", dest: "document"])
            #expect(!offsite.text.contains("href=\"//evil.example"))
            // The same requests from the service's own pages, from a person, or from a non-browser client work.
            for headers: HTTPFields in [[site: "same-origin"], [site: "none"], [:]] {
                #expect(
                    try await client.execute(uri: "/api/search?q=refund", method: .get, headers: headers).status == .ok)
            }
            var own = json
            own[.origin] = "http://localhost"  // the test client sends `Host: localhost`
            own[site] = "same-origin"
            let made = try await client.execute(
                uri: "/api/exports", method: .post, headers: own, body: ByteBuffer(string: #"{"where": "refund"}"#))
            #expect(made.status == .created)
            #expect(
                try await client.execute(uri: "/healthz", method: .get, headers: [site: "cross-site"]).status == .ok)
        }
        let actions = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries().map(\.action)
        // The one export allowed: its bundle's own begin entry, then the export.
        #expect(actions == ["serve", "search", "search", "search", "export_begin", "export"])
    }

    @Test func queriesAreCappedAndTheAuditLogKeepsALongOneShort() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        // Just under the cap: 4,000 bytes of alternatives; just over: 4,097 bytes.
        let long = (["refund"] + (1..<480).map { "w\($0)" }).joined(separator: " or ")
        #expect(long.utf8.count > 3000 && long.utf8.count <= QueryParser.maximumLength)
        let over = String(repeating: "a", count: 64 * 1024)
        try await fixture.serve { client in
            let encoded = long.replacingOccurrences(of: " ", with: "+")
            #expect(try await client.execute(uri: "/api/search?q=\(encoded)", method: .get).status == .ok)
            for uri in ["/api/search?q=\(over)", "/api/stats?where=\(over)", "/search?q=\(over)"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .badRequest)
                #expect(response.body.readableBytes < 4 * QueryParser.maximumLength + 8192)  // not the 64 KB sent
            }
            let refused = try await client.execute(uri: "/api/search?q=\(over)", method: .get).json["error"]
            #expect(refused?["position"] == .int(QueryParser.maximumLength))
            let export = try await client.execute(
                uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: JSONValue.object(["where": .string(String(over.prefix(8192)))]).jsonString))
            #expect(export.status == .badRequest)
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        let search = try #require(entries.last { $0.action == "search" })
        let detail = try JSONValue(parsing: search.detail)
        let kept = try #require(detail["q"]?.stringValue)
        #expect(kept.utf8.count <= 512 + 3 && long.hasPrefix(String(kept.dropLast())))
        #expect(detail["q_bytes"] == .int(long.utf8.count))
        let digest = SHA256.hash(data: Array(long.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(detail["q_sha256"] == .string(digest))
        #expect(search.detail.utf8.count < 1024)
        #expect(entries.filter { $0.action == "search" }.count == 1)  // refused queries cost nothing
    }

    @Test func failedLoginsAreAuditedAndThrottled() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve(token: Self.token) { client in
            for attempt in 1...5 {
                let bad = try await client.execute(
                    uri: "/login", method: .post, headers: Self.form,
                    body: .init(string: "name=mallory\(attempt)&token=guess\(attempt)&next=%2F"))
                #expect(bad.status == .unauthorized)
            }
            let throttled = try await client.execute(
                uri: "/login", method: .post, headers: Self.form,
                body: .init(string: "name=mallory&token=guess&next=%2F"))
            #expect(throttled.status == .tooManyRequests)
            #expect(Int(throttled.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // The form answered as a page for the person who submitted it, saying how long to wait.
            #expect(throttled.headers[.contentType]?.hasPrefix("text/html") == true)
            let page = String(buffer: throttled.body)
            #expect(page.contains("Too many failed logins from this address: try again in "), "\(page)")
            #expect(page.contains("<form class=\"login\""))
            // While throttled, even the right token waits: guessing cannot go on in parallel with it.
            #expect(try await login(client, next: "%2F").status == .tooManyRequests)
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        let failed = entries.filter { $0.action == "login_failed" }
        #expect(failed.count == 5)
        let detail = try JSONValue(parsing: failed[0].detail)
        #expect(detail["name"] == .string("mallory1") && detail["from"] != nil && detail["from"] != .null)
        #expect(!failed.contains { $0.detail.contains("guess") })  // a tried token is never recorded
    }

    @Test func theBearerSchemeIsCaseInsensitive() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve(token: Self.token) { client in
            for header in [
                "Bearer \(Self.token)", "bearer \(Self.token)", "BEARER \(Self.token)", "bEaReR  \(Self.token)",
            ] {
                let response = try await client.execute(
                    uri: "/api/search?q=refund", method: .get, headers: [.authorization: header])
                #expect(response.status == .ok, "\(header.prefix(8))")
            }
            for header in ["Bearer", "Bearer ", "Basic \(Self.token)", "Bearer\(Self.token)", "Bearer x\(Self.token)"] {
                let response = try await client.execute(
                    uri: "/api/search?q=refund", method: .get, headers: [.authorization: header])
                #expect(response.status == .unauthorized, "\(header.prefix(8))")
            }
        }
    }

    @Test func behindATrustedProxyTheCookieIsSecureAndTheClientIsAudited() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let proto = HTTPField.Name("X-Forwarded-Proto")!
        let forwarded = HTTPField.Name("X-Forwarded-For")!
        try await fixture.serve(token: Self.token) { client in
            let direct = try await login(client, next: "%2F")
            #expect(direct.headers[.setCookie]?.contains("Secure") == false)
        }
        try await fixture.serve(token: Self.token, configure: { $0.trustProxy = true }) { client in
            let viaTLS = try await login(client, next: "%2F", headers: [proto: "https", forwarded: "203.0.113.7"])
            #expect(viaTLS.headers[.setCookie]?.contains("Secure") == true)
            let unlabelled = try await login(client, next: "%2F")
            #expect(unlabelled.headers[.setCookie]?.contains("Secure") == true)
            let plain = try await login(client, next: "%2F", headers: [proto: "http"])
            #expect(plain.headers[.setCookie]?.contains("Secure") == false)
        }
        let logins = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries().filter {
            $0.action == "login"
        }
        #expect(try JSONValue(parsing: logins[0].detail)["from"] != .string("203.0.113.7"))
        #expect(try JSONValue(parsing: logins[1].detail)["from"] == .string("203.0.113.7"))
    }
}
