import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

@Suite("Service security: binding, tokens, sessions", .serialized)
struct AuthTests {
    static let token = "correct-horse-battery-staple-42"

    @Test func refusesToExposeTheArchiveWithoutAToken() throws {
        var configuration = ServiceConfiguration(archivePath: "x", host: "0.0.0.0")
        #expect(throws: ServiceSetupError.tokenRequired(host: "0.0.0.0")) { try configuration.validate() }
        configuration.token = "short"
        #expect(throws: ServiceSetupError.tokenTooShort(length: 5)) { try configuration.validate() }
        configuration.token = Self.token
        try configuration.validate()
        for host in ["127.0.0.1", "localhost", "::1"] {
            try ServiceConfiguration(archivePath: "x", host: host).validate()
        }
    }

    @Test(arguments: [
        ("127.0.0.1:8080", true), ("localhost", true), ("[::1]:80", true), ("127.9.9.9", true),
        ("evil.example", false), ("evil.example:8080", false), ("127.0.0.1.evil.example", false),
        ("archive.example.org", true), ("ARCHIVE.example.org:443", true), ("", false),
    ])
    func withoutATokenOnlyLoopbackNamesAreAnswered(host: String, accepted: Bool) {
        var configuration = ServiceConfiguration(archivePath: "x")
        configuration.allowedHosts = ["archive.example.org"]
        #expect(configuration.acceptsHost(host) == accepted)
    }

    @Test func apiNeedsTheBearerToken() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve(token: Self.token) { client in
            let anonymous = try await client.execute(uri: "/api/search?q=refund", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            #expect(try anonymous.json["error"]?["code"] == .string("unauthorized"))
            let wrong = try await client.execute(
                uri: "/api/search?q=refund", method: .get, headers: [.authorization: "Bearer \(Self.token)x"])
            #expect(wrong.status == .unauthorized)
            #expect(try await client.execute(uri: "/metrics", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/api/exports", method: .post).status == .unauthorized)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)

            let right = try await client.execute(
                uri: "/api/search?q=refund", method: .get,
                headers: [.authorization: "Bearer \(Self.token)", HTTPField.Name("X-QBArchive-User")!: "bot"])
            #expect(right.status == .ok)
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        #expect(entries.map(\.action) == ["serve", "search"])
        #expect(try JSONValue(parsing: entries[1].detail)["by"] == .string("api:bot"))
    }

    @Test func pagesNeedALoginWhoseNameIsAudited() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve(token: Self.token) { client in
            let page = try await client.execute(uri: "/search?q=refund", method: .get)
            #expect(page.status == .seeOther || page.status == .found || page.status == .temporaryRedirect)
            #expect(page.headers[.location] == "/login?next=%2Fsearch%3Fq%3Drefund")
            let loginPage = try await client.execute(uri: "/login?next=%2Fsearch%3Fq%3Drefund", method: .get)
            #expect(loginPage.status == .ok && loginPage.text.contains("name=\"token\""))
            #expect(try await client.execute(uri: "/static/app.css", method: .get).status == .ok)

            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let bad = try await client.execute(
                uri: "/login", method: .post,
                headers: form,
                body: .init(string: "name=alice&token=nope&next=%2Fsearch"))
            #expect(bad.status == .unauthorized)
            #expect(bad.headers[.setCookie] == nil)

            let good = try await client.execute(
                uri: "/login", method: .post,
                headers: form,
                body: .init(string: "name=Alice+Moderator&token=\(Self.token)&next=%2Fsearch%3Fq%3Drefund"))
            #expect(good.headers[.location] == "/search?q=refund")
            let cookie = try #require(good.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
            let session = String(cookie.split(separator: ";")[0])
            let authed = try await client.execute(uri: "/search?q=refund", method: .get, headers: [.cookie: session])
            #expect(authed.status == .ok && authed.text.contains("Alice Moderator"))

            let offsite = try await client.execute(
                uri: "/login", method: .post,
                headers: form,
                body: .init(string: "name=a&token=\(Self.token)&next=%2F%2Fevil.example"))
            #expect(offsite.headers[.location] == "/")

            _ = try await client.execute(uri: "/logout", method: .post, headers: [.cookie: session])
            let after = try await client.execute(uri: "/search?q=refund", method: .get, headers: [.cookie: session])
            #expect(after.headers[.location]?.hasPrefix("/login") == true)
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        let searches = try entries.filter { $0.action == "search" }.map { try JSONValue(parsing: $0.detail)["by"] }
        #expect(searches == [.string("Alice Moderator")])
        #expect(entries.filter { $0.action == "login" }.count == 2)
    }
}
