import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QueryLanguage
import QuickBlox
import Service
import Testing

@Suite("JSON API over real HTTP", .serialized)
struct APITests {
    @Test func searchReturnsRecordsCountsAndPages() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let archive = try SQLiteArchive.openReadOnly(at: fixture.archivePath)
        try await fixture.serve { client in
            let all = try await client.execute(uri: "/api/search?q=refund&limit=500", method: .get)
            #expect(all.status == .ok)
            #expect(all.headers[.contentType] == "application/json; charset=utf-8")
            let json = try all.json
            let count = json["count"]?.lenientInt ?? -1
            let hits = json["hits"]?.arrayValue ?? []
            #expect(count > 3)
            #expect(hits.count == min(count, 500))
            #expect(hits.allSatisfy { ($0["text"]?.stringValue ?? "").lowercased().contains("refund") })
            #expect(hits.first?["sender_login"] != nil && hits.first?["dialog_id"] != nil)

            let second = try await client.execute(uri: "/api/search?q=refund&limit=2&offset=1&sort=date", method: .get)
            let page = try second.json
            #expect(page["limit"] == .int(2) && page["offset"] == .int(1) && page["sort"] == .string("date"))
            let oldest = try await archive.search(
                try QueryParser(now: ArchiveTime.now()).parse("refund"),
                options: SearchOptions(limit: 2, offset: 1, sort: .oldest))
            #expect(page["hits"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == oldest.map(\.message.id))
        }
    }

    @Test(
        arguments: [
            ("/api/search?q=sendr_id%3D5", "invalid_query", "sender_id"),
            ("/api/search?q=(refund", "invalid_query", nil),
            ("/api/search?q=from:nobody", "invalid_query", nil),
            ("/api/search?q=@no-such-review", "unknown_saved_query", nil),
            ("/api/search", "bad_request", nil),
            ("/api/search?q=refund&limit=0", "bad_request", nil),
            ("/api/search?q=refund&sort=size", "bad_request", nil),
            ("/api/search?q=caf%E9", "bad_request", "UTF-8"),
        ] as [(String, String, String?)])
    func badRequestsAreNamedNeverEmpty(uri: String, code: String, hint: String?) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let response = try await client.execute(uri: uri, method: .get)
            #expect(response.status == .badRequest)
            let error = try response.json["error"]
            #expect(error?["code"] == .string(code))
            let message = error?["message"]?.stringValue ?? ""
            #expect(message.count > 5)
            #expect(try response.json["hits"] == nil)
            if code == "invalid_query" { #expect(error?["position"]?.lenientInt != nil) }
            if let hint {
                let said = (error?["hint"]?.stringValue ?? "") + (error?["message"]?.stringValue ?? "")
                #expect(said.contains(hint))
            }
        }
    }

    @Test func dialogsTranscriptsAndMessageHistory() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let list = try await client.execute(uri: "/api/dialogs", method: .get).json
            #expect(list["total"] == .int(9))
            let dialogs = list["dialogs"]?.arrayValue ?? []
            #expect(dialogs.count == 9)
            let hostile = dialogs.first { $0["id"]?.stringValue == ServiceFixture.hostileDialogID }
            #expect(hostile?["title"]?.stringValue == ServiceFixture.hostileName)
            #expect(hostile?["messages"] == .int(1))

            // A dialog's transcript, then the page centred on one of its messages.
            let busiest = dialogs.max { ($0["messages"]?.lenientInt ?? 0) < ($1["messages"]?.lenientInt ?? 0) }!
            let id = busiest["id"]!.stringValue!
            let first = try await client.execute(uri: "/api/dialogs/\(id)/messages?limit=500", method: .get).json
            let ids = first["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(ids.count == busiest["messages"]?.lenientInt)
            let dates = first["messages"]?.arrayValue?.compactMap { $0["date_sent"]?.lenientInt } ?? []
            #expect(dates == dates.sorted())
            let middle = ids[ids.count / 2]
            let around = try await client.execute(
                uri: "/api/dialogs/\(id)/messages?around=\(middle)&limit=10", method: .get
            )
            .json
            let window = around["messages"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            #expect(window.count == 10 && window.contains(middle))
            #expect(window == Array(ids[(ids.count / 2 - 5)..<(ids.count / 2 + 5)]))

            let message = try await client.execute(
                uri: "/api/messages/\(ServiceFixture.hostileMessageID)", method: .get
            )
            .json
            #expect(message["message"]?["text"]?.stringValue == ServiceFixture.hostileText)
            #expect(message["message"]?["edited"] == .int(1))
            let revision = message["revisions"]?.arrayValue?.first
            #expect(revision?["text"] == .string("first version: wire me money"))
            #expect(revision?["message_id"] == .string(ServiceFixture.hostileMessageID))
            #expect(revision?["revision"] == .int(1) && revision?["observed_at"]?.stringValue != nil)

            #expect(
                try await client.execute(uri: "/api/messages/ffffffffffffffffffffffff", method: .get).status
                    == .notFound)
            #expect(try await client.execute(uri: "/api/dialogs/nope/messages", method: .get).status == .notFound)
            let wrongDialog = try await client.execute(
                uri: "/api/dialogs/\(id)/messages?around=\(ServiceFixture.hostileMessageID)", method: .get)
            #expect(wrongDialog.status == .notFound)
        }
    }

    @Test func savedQueriesHealthAndMetrics() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let queries = try await client.execute(uri: "/api/queries", method: .get).json
            #expect(queries["queries"]?.arrayValue?.first?["name"] == .string("refunds"))
            #expect(queries["queries"]?.arrayValue?.first?["title"] == .string("Refund talk"))
            let saved = try await client.execute(uri: "/api/search?q=@refunds", method: .get).json
            let plain = try await client.execute(uri: "/api/search?q=refund", method: .get).json
            #expect(saved["count"] == plain["count"])

            #expect(try await client.execute(uri: "/healthz", method: .get).json["status"] == .string("ok"))
            _ = try await client.execute(uri: "/api/search?q=sendr_id%3D5", method: .get)
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(metrics.headers[.contentType]?.hasPrefix("text/plain") == true)
            #expect(
                metrics.text.contains(
                    #"qbarchive_http_requests_total{route="/api/search",method="GET",status="200"} 2"#))
            #expect(
                metrics.text.contains(
                    #"qbarchive_http_requests_total{route="/api/search",method="GET",status="400"} 1"#))
            #expect(metrics.text.contains("qbarchive_archive_messages 601"))
            #expect(metrics.text.contains(#"qbarchive_last_run_status{status="complete"} 1"#))
            #expect(metrics.text.contains("qbarchive_http_request_duration_seconds_bucket"))
        }
    }

    @Test func statsMatchTheCLIReportAndRefuseBadParameters() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let all = try await client.execute(uri: "/api/stats", method: .get).json
            #expect(all["totals"]?["messages"] == .int(601))
            #expect(all["period"] == .string("day"))
            let hostile = all["top_dialogs"]?.arrayValue?.contains { $0["name"] == .string(ServiceFixture.hostileName) }
            #expect(hostile == true)
            let filtered = try await client.execute(uri: "/api/stats?where=from:mallory&by=month", method: .get).json
            #expect(filtered["totals"]?["messages"] == .int(1))
            #expect(filtered["query"] == .string("from:mallory") && filtered["period"] == .string("month"))
            let badPeriod = try await client.execute(uri: "/api/stats?by=year", method: .get)
            #expect(badPeriod.status == .badRequest)
            let badQuery = try await client.execute(uri: "/api/stats?where=sendr_id%3D1", method: .get)
            #expect(try badQuery.json["error"]?["code"] == .string("invalid_query"))
        }
    }

    /// The dashboard's figures are cached until the archive changes; an erasure, made outside any crawl, is a
    /// change: the erased person's login and name leave the served stats at once, not at the next crawl.
    @Test func anErasureReachesTheServedStatsAtOnce() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let senders = { (response: TestResponse) throws -> [JSONValue] in
                try response.json["top_senders"]?.arrayValue ?? []
            }
            let alice = { (sender: JSONValue) in sender["login"] == .string("user2") }
            let before = try senders(try await client.execute(uri: "/api/stats", method: .get))
            #expect(before.contains(where: alice))
            let writer = try SQLiteArchive.open(at: fixture.archivePath)
            _ = try await writer.erase(.user("100002"), reason: "GDPR request", dryRun: false, at: ArchiveTime.now())
            let after = try senders(try await client.execute(uri: "/api/stats", method: .get))
            #expect(after.count == before.count && !after.contains(where: alice), "\(after)")
            #expect(!after.contains { $0["full_name"] == .string("Alice Martin") })
        }
    }

    @Test func everySearchAndViewIsAudited() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            _ = try await client.execute(uri: "/api/search?q=refund", method: .get)
            _ = try await client.execute(uri: "/api/messages/\(ServiceFixture.hostileMessageID)", method: .get)
            _ = try await client.execute(uri: "/search?q=wire", method: .get)
            _ = try await client.execute(uri: "/dialogs/\(ServiceFixture.hostileDialogID)", method: .get)
        }
        let archive = try SQLiteArchive.openReadOnly(at: fixture.archivePath)
        let entries = try await archive.auditEntries()
        #expect(entries.map(\.action) == ["serve", "search", "view", "search", "view"])
        let details = try entries.map { try JSONValue(parsing: $0.detail) }
        #expect(details[1]["q"] == .string("refund") && details[1]["via"] == .string("api"))
        #expect(details[1]["by"] == .string("local") && details[1]["from"] == .string("127.0.0.1"))
        #expect(details[2]["message"] == .string(ServiceFixture.hostileMessageID))
        #expect(details[3]["via"] == .string("web"))
        #expect(details[4]["dialog"] == .string(ServiceFixture.hostileDialogID))
        #expect(try await archive.firstBrokenAuditEntry() == nil)
    }
}
