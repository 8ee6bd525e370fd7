import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import Service
import Testing

@Suite("Moderator web UI over real HTTP", .serialized)
struct WebUITests {
    @Test func hostileTextIsRenderedInertEverywhere() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let pages = [
                "/search?q=refund+from:mallory",
                "/search?q=" + "<script>x</script>".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                "/dialogs", "/dialogs/\(ServiceFixture.hostileDialogID)?around=\(ServiceFixture.hostileMessageID)",
                "/messages/\(ServiceFixture.hostileMessageID)",
            ]
            for uri in pages {
                let response = try await client.execute(uri: uri, method: .get)
                let html = response.text
                #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                #expect(response.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true, "\(uri)")
                // No tag made of archived or typed text survives: the only <script>, <img> or
                // on*= attribute would be the hostile one.
                #expect(!html.contains("<script"), "\(uri)")
                #expect(!html.contains("<img"), "\(uri)")
                #expect(!html.contains("onerror=alert(1)>"), "\(uri)")
                #expect(!html.contains("<b onmouseover"), "\(uri)")
            }
            let transcript = try await client.execute(
                uri: "/dialogs/\(ServiceFixture.hostileDialogID)?around=\(ServiceFixture.hostileMessageID)",
                method: .get
            ).text
            #expect(transcript.contains("&lt;script&gt;alert(&quot;xss&quot;)&lt;/script&gt; refund &amp; &lt;img"))
            #expect(transcript.contains("&lt;b onmouseover=alert(&#39;room&#39;)&gt;Room&lt;/b&gt;"))
            #expect(transcript.contains("&lt;script&gt;alert(&#39;user&#39;)&lt;/script&gt;"))
            #expect(transcript.contains("&lt;i&gt;pic&lt;/i&gt;"))
        }
    }

    @Test func searchPageHighlightsAndLinksToTheTranscript() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let empty = try await client.execute(uri: "/search", method: .get).text
            #expect(empty.contains("<details class=\"help\" open>"))
            #expect(empty.contains("href=\"/search?q=%40refunds\""))  // saved query one click away
            #expect(!empty.contains("id=\"results\""))

            let html = try await client.execute(uri: "/search?q=wire", method: .get).text
            #expect(html.contains("<strong id=\"result-count\">"))
            #expect(html.contains("<mark>"))
            #expect(
                html.contains(
                    "<p class=\"understood\" id=\"understood-as\">Understood as: <bdi>word &quot;wire&quot;</bdi></p>"))
            #expect(html.contains("<span id=\"result-shown\">showing "))
            let nothing = try await client.execute(uri: "/search?q=zzqqxx", method: .get).text
            #expect(nothing.contains("No archived message matches this query, as understood above."))
            // A page past the last: never "no message matches", and the way back leads to the last page.
            let everything = try await client.execute(uri: "/api/search?q=date%3E2000&limit=1", method: .get).json
            let total = try #require(everything["total"]?.lenientInt)
            try #require(total > 0)
            let lastPage = (total - 1) / 50 * 50
            for offset in [total, total + 1, total + 1000] {
                let past = try await client.execute(uri: "/search?q=date%3E2000&offset=\(offset)", method: .get).text
                #expect(!past.contains("No archived message matches"), "offset \(offset)")
                #expect(past.contains("this page starts after the last one"), "offset \(offset)")
                #expect(past.contains("offset=\(lastPage)"), "offset \(offset)")
            }
            #expect(nothing.contains("Understood as: <bdi>word &quot;zzqqxx&quot;</bdi>"))
            for sort in ["size", "DATE", "-rank", "%20date"] {
                let refused = try await client.execute(uri: "/search?q=wire&sort=\(sort)", method: .get)
                #expect(refused.status == .badRequest, "sort=\(sort)")
                #expect(refused.text.contains("sort must be -date, date or rank"), "sort=\(sort)")
            }
            let unknown = try await client.execute(uri: "/search?q=from%3Anobody", method: .get)
            #expect(unknown.status == .badRequest)
            #expect(unknown.text.contains("no archived user has the login or name `nobody`"))
            let transcriptHref = try #require(Self.firstHref(in: html, containing: "/dialogs/"))
            let transcript = try await client.execute(
                uri: transcriptHref.replacingOccurrences(of: "&amp;", with: "&"), method: .get)
            #expect(transcript.status == .ok)
            #expect(transcript.text.contains("class=\"message target"))
            #expect(transcriptHref.contains("&amp;q=wire#m-"))  // the search's words, highlighted in context
            #expect(transcript.text.contains("<mark>wire</mark>"))
        }
    }

    @Test func aBadQueryShowsWhereNotAnEmptyResult() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let response = try await client.execute(uri: "/search?q=refund+sendr_id%3D5", method: .get)
            #expect(response.status == .badRequest)
            let html = response.text
            #expect(html.contains("id=\"query-error\""))
            #expect(html.contains("<code class=\"query\">refund <mark class=\"bad\">sendr_id</mark>=5</code>"))
            #expect(html.contains("did you mean `sender_id`?"))
            #expect(!html.contains("No archived message matches"))
            #expect(!html.contains("id=\"results\""))
        }
    }

    @Test func transcriptShowsEditsDeletionsAttachmentsAndPermalinks() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let archive = try SQLiteArchive.open(at: fixture.archivePath)
        _ = try await archive.tombstoneMessages(ids: [ServiceFixture.hostileMessageID])
        // A second message in the dialog, then hidden for one user.
        let second = Message(
            id: "00000000000000000000bad2", chatDialogID: ServiceFixture.hostileDialogID, text: "still here for others",
            dateSent: 1_700_000_100, senderID: nil, recipientID: nil, createdAt: 1_700_000_100, updatedAt: 1_700_000_100
        )
        _ = try await archive.storeMessages(
            dialogID: ServiceFixture.hostileDialogID, rawItems: [second.json], cursor: nil, at: 1_700_000_100)
        #expect(try await archive.recordHidden(messageIDs: [second.id], for: 4242, at: 1_700_000_000) == 1)
        // One who hid it is an archived user: named, with the id.
        let hider = User(id: 4244, login: "zoe", fullName: "Zoë Hider", createdAt: 0, updatedAt: 0)
        _ = try await archive.storeUsers(rawItems: [hider.json], at: 1_700_000_000)
        #expect(try await archive.recordHidden(messageIDs: [second.id], for: 4244, at: 1_700_000_000) == 1)
        #expect(try await archive.recordDialogHidden(id: ServiceFixture.hostileDialogID, for: 4243, at: 1_700_000_000))
        try await fixture.serve { client in
            let html = try await client.execute(uri: "/dialogs/\(ServiceFixture.hostileDialogID)", method: .get).text
            #expect(html.contains("edited 1×"))
            #expect(html.contains("deleted for everyone"))
            #expect(
                html.contains("hidden for user 4242; Zoë Hider, user 4244"),
                "a per-user hide is shown, and the message kept")
            let found = try await client.execute(uri: "/search?q=is%3Ahidden", method: .get).text
            #expect(found.contains("Zoë Hider, user 4244"), "\(found)")
            let single = try await client.execute(uri: "/messages/\(second.id)", method: .get).text
            #expect(single.contains("Zoë Hider, user 4244"))
            #expect(html.contains("removed from the list of user 4243"))
            #expect(html.contains("📎 image"))
            #expect(
                html.contains(
                    "href=\"/dialogs/\(ServiceFixture.hostileDialogID)?around=\(ServiceFixture.hostileMessageID)#m-\(ServiceFixture.hostileMessageID)\""
                ))
            let history = try await client.execute(uri: "/messages/\(ServiceFixture.hostileMessageID)", method: .get)
                .text
            #expect(history.contains("version 1"))
            #expect(history.contains("first version: wire me money"))
            let missing = try await client.execute(uri: "/dialogs/nope", method: .get)
            #expect(missing.status == .notFound)
            #expect(missing.text.contains("no archived dialog has id nope"))
            let dashboard = try await client.execute(uri: "/dashboard", method: .get)
            #expect(dashboard.status == .ok && dashboard.text.contains("Recent crawl runs"))
            #expect(dashboard.text.contains("<figure class=\"chart\""))
            #expect(dashboard.text.contains("<svg"))
            #expect(dashboard.text.contains("first reply, median"))
            #expect(!dashboard.text.contains("<b onmouseover"))
            let css = try await client.execute(uri: "/static/app.css", method: .get)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8" && css.text.contains("mark"))
        }
    }

    static func firstHref(in html: String, containing part: String) -> String? {
        var rest = Substring(html)
        while let range = rest.range(of: "href=\"") {
            rest = rest[range.upperBound...]
            guard let end = rest.firstIndex(of: "\"") else { return nil }
            let href = String(rest[..<end])
            if href.contains(part) { return href }
        }
        return nil
    }
}
