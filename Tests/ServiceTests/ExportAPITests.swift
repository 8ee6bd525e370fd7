import ArchiveSQLite
import Crypto
import Export
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

@Suite("POST /api/exports makes verifiable bundles", .serialized)
struct ExportAPITests {
    @Test(arguments: ["tar.gz", "zip"])
    func anExportIsMadeListedDownloadedAndVerified(container: String) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let count = try await client.execute(uri: "/api/search?q=refund", method: .get).json["count"]
            let made = try await client.execute(
                uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"where": "refund", "container": "\#(container)"}"#))
            #expect(made.status == .created)
            let json = try made.json
            #expect(json["messages"] == count)
            #expect(json["manifest"]?["counts"]?["messages"] == count)
            #expect(json["manifest"]?["selection"]?["where"] == .string("refund"))
            let name = try #require(json["name"]?.stringValue)
            #expect(name.hasSuffix("." + container))

            let listed = try await client.execute(uri: "/api/exports", method: .get).json
            #expect(listed["exports"]?.arrayValue?.first?["name"] == .string(name))

            let download = try await client.execute(uri: "/api/exports/\(name)", method: .get)
            #expect(download.status == .ok)
            let bytes = Array(buffer: download.body)
            let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            #expect(.string(digest) == json["sha256"])
            let copy = fixture.path("downloaded." + container)
            try Data(bytes).write(to: URL(fileURLWithPath: copy))
            let report = try BundleVerifier().verify(path: copy)
            #expect(report.manifest.files.contains { $0.path == "messages.jsonl" })
            // The bundle carries the audit entry of its own creation, naming who asked.
            #expect(report.manifest.files.contains { $0.path == "audit.jsonl" })
            let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
            let begun = try #require(entries.last { $0.action == "export_begin" })
            #expect(report.manifest.body["audit"]?["entry"] == .int(Int(begun.id)))
            #expect(try JSONValue(parsing: begun.detail)["via"] == "api")
            let finished = try #require(entries.last { $0.action == "export" })
            #expect(try JSONValue(parsing: finished.detail)["begun"]?["hash"] == .string(begun.hashHex))
        }
        let entries = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        #expect(entries.map(\.action).suffix(3) == ["export_begin", "export", "download"])
    }

    @Test(arguments: [
        (#"{"where": "sendr_id = 1"}"#, "invalid_query"),
        (#"{"since": "last tuesday"}"#, "bad_request"),
        (#"{"container": "rar"}"#, "bad_request"),
        (#"{"wher": "refund"}"#, "bad_request"),
        (#"["refund"]"#, "bad_request"),
        ("{", "bad_request"),
    ])
    func badExportRequestsSayWhat(body: String, code: String) async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            let response = try await client.execute(
                uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: body))
            #expect(response.status == .badRequest)
            #expect(try response.json["error"]?["code"] == .string(code))
            // Errors name the request's fields, not the command line's options.
            let message = try response.json["error"]?["message"]?.stringValue ?? ""
            #expect(!message.contains("--"), "\(message)")
            if body.contains("since") { #expect(message.hasPrefix("the since field last tuesday is not a date")) }
            let listed = try await client.execute(uri: "/api/exports", method: .get).json
            #expect(listed["exports"]?.arrayValue?.isEmpty == true)
        }
    }

    /// An unknown `dialog` is that field's 404, not a query error at position 0; a saved query's error is
    /// positioned in its own text, as /api/search positions it.
    @Test func exportErrorsNameTheirFieldAndTheirText() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try "refund and from:nosuchuser\n".write(
            toFile: fixture.queriesDirectory + "/badq.qbq", atomically: true, encoding: .utf8)
        try await fixture.serve { client in
            for body in [#"{"dialog": "nosuchdialog", "where": "refund"}"#, #"{"dialog": "nosuchdialog"}"#] {
                let response = try await client.execute(
                    uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: body))
                #expect(response.status == .notFound, "\(body): \(response.text)")
                #expect(try response.json["error"]?["message"]?.stringValue?.contains("dialog field") == true)
            }
            let exported = try await client.execute(
                uri: "/api/exports", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"where": "@badq"}"#))
            let searched = try await client.execute(uri: "/api/search?q=%40badq", method: .get)
            #expect(exported.status == .badRequest && searched.status == .badRequest)
            for key in ["query", "position", "length", "code"] {
                #expect(try exported.json["error"]?[key] == searched.json["error"]?[key], "\(key): \(exported.text)")
            }
            #expect(try exported.json["error"]?["query"] == .string("refund and from:nosuchuser"))
            let listed = try await client.execute(uri: "/api/exports", method: .get).json
            #expect(listed["exports"]?.arrayValue?.isEmpty == true)
        }
    }

    /// A cross-site form or `text/plain` post (no CORS preflight) must not start an export.
    @Test func onlyJSONBodiesStartAnExport() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try await fixture.serve { client in
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let response = try await client.execute(
                    uri: "/api/exports", method: .post, headers: [.contentType: type],
                    body: ByteBuffer(string: #"{"where": "refund"}"#))
                #expect(response.status == .unsupportedMediaType, "\(type)")
            }
            let listed = try await client.execute(uri: "/api/exports", method: .get).json
            #expect(listed["exports"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test func downloadsCannotLeaveTheExportsDirectory() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        try "TOP-SECRET-CONTENT".write(toFile: fixture.path("secret.txt"), atomically: true, encoding: .utf8)
        try await fixture.serve { client in
            for uri in ["/api/exports/..%2Fsecret.txt", "/api/exports/.hidden", "/api/exports/%2E%2E%2Farchive.sqlite"]
            {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(!response.text.contains("TOP-SECRET-CONTENT"))
            }
        }
    }
}
