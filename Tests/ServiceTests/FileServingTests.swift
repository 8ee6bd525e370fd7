import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

@Suite("Attachment files in the web UI and GET /files/{sha256}", .serialized)
struct FileServingTests {
    static let dialogID = "0000000000000000000f11e5"
    static let messageID = "0000000000000000000f11e1"

    struct Stored: Sendable {
        var png: String
        var html: String
        var svg: String
        var pdf: String
    }

    /// A dialog with one message attaching a PNG, an HTML page, an SVG, a PDF with a hostile name (all
    /// stored) and a file that was never downloaded.
    static func addFiles(to archive: SQLiteArchive) async throws -> Stored {
        let now = ArchiveTime.now()
        try await archive.storeDialogs(rawItems: [
            Dialog(
                id: dialogID, type: .group, name: "Files", userID: 100_001, occupantIDs: [100_001],
                createdAt: now - 100, updatedAt: now
            ).json
        ])
        let hostileName = "\"><script>alert(1)</script>;\r\nX-Evil: 1.pdf"
        let message = Message(
            id: messageID, chatDialogID: dialogID, text: "files attached", dateSent: now - 50, senderID: 100_001,
            recipientID: nil,
            attachments: [
                Attachment(type: "image", uid: "f-png", name: "photo.png"),
                Attachment(type: "file", uid: "f-html", name: "page.html"),
                Attachment(type: "image", uid: "f-svg", name: "drawing.svg"),
                Attachment(type: "file", uid: "f-pdf", name: hostileName),
                Attachment(type: "audio", uid: "f-missing", name: "voice.m4a"),
            ], readIDs: [], createdAt: now - 50, updatedAt: now - 50, extra: [:])
        _ = try await archive.storeMessages(dialogID: dialogID, rawItems: [message.json], cursor: nil)
        func store(_ key: String, _ bytes: [UInt8], _ type: String) async throws -> String {
            let writer = try archive.fileStore.makeWriter()
            _ = bytes.withUnsafeBytes { writer.write($0) }
            let (sha256, size) = try writer.commit()
            try await archive.recordFetch(
                key: key, outcome: .stored(sha256: sha256, size: size, contentType: type, source: "test"))
            return sha256
        }
        return Stored(
            png: try await store("uid:f-png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3], "image/png"),
            html: try await store("uid:f-html", Array("<script>alert('owned')</script>".utf8), "text/html"),
            svg: try await store("uid:f-svg", Array("<svg onload=alert(1)></svg>".utf8), "image/svg+xml"),
            pdf: try await store("uid:f-pdf", Array("%PDF-1.7 body".utf8), "application/pdf"))
    }

    @Test("A transcript links stored files, shows images inline and says why a file is missing")
    func transcriptLinksFiles() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let stored = try await Self.addFiles(to: try SQLiteArchive.open(at: fixture.archivePath))
        try await fixture.serve { client in
            for uri in ["/dialogs/\(Self.dialogID)", "/messages/\(Self.messageID)"] {
                let html = try await client.execute(uri: uri, method: .get).text
                #expect(html.contains("<a href=\"/files/\(stored.png)\"><bdi>photo.png</bdi></a>"), "\(uri)")
                #expect(html.contains("<img class=\"thumb\" src=\"/files/\(stored.png)\""), "\(uri)")
                #expect(html.contains("<a href=\"/files/\(stored.html)\"><bdi>page.html</bdi></a>"), "\(uri)")
                #expect(!html.contains("src=\"/files/\(stored.html)\""), "only raster images are inline")
                #expect(!html.contains("src=\"/files/\(stored.svg)\""), "SVG is not shown inline")
                #expect(
                    html.contains("<bdi>voice.m4a</bdi> <small class=\"note\">(file not downloaded)</small>"), "\(uri)")
                #expect(!html.contains("<script>alert(1)"), "\(uri)")
                #expect(html.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"), "\(uri)")
            }
        }
    }

    @Test("Files are served with their type; active content only as a download of octet-stream")
    func servedSafely() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let stored = try await Self.addFiles(to: try SQLiteArchive.open(at: fixture.archivePath))
        try await fixture.serve { client in
            let png = try await client.execute(uri: "/files/\(stored.png)", method: .get)
            #expect(png.status == .ok)
            #expect(png.headers[.contentType] == "image/png")
            #expect(png.headers[.contentDisposition]?.hasPrefix("inline; filename=\"photo.png\"") == true)
            #expect(Array(buffer: png.body) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
            #expect(png.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(png.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)

            for digest in [stored.html, stored.svg] {
                let response = try await client.execute(uri: "/files/\(digest)", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/octet-stream")
                #expect(response.headers[.contentDisposition]?.hasPrefix("attachment;") == true)
            }
            let pdf = try await client.execute(uri: "/files/\(stored.pdf)", method: .get)
            #expect(pdf.headers[.contentType] == "application/pdf")
            let disposition = try #require(pdf.headers[.contentDisposition])
            #expect(disposition.hasPrefix("attachment; filename=\"_><script>alert(1)</script>___X-Evil: 1.pdf\""))
            #expect(!disposition.contains("\r") && !disposition.contains("\n"))
            #expect(disposition.contains("filename*=UTF-8''%22%3E%3Cscript%3E"))
            #expect(pdf.headers[HTTPField.Name("X-Evil")!] == nil)

            for uri in ["/files/" + String(repeating: "0", count: 64), "/files/..%2F..%2Fetc%2Fpasswd", "/files/abc"] {
                #expect(try await client.execute(uri: uri, method: .get).status == .notFound, "\(uri)")
            }
        }
        let audit = try await SQLiteArchive.openReadOnly(at: fixture.archivePath).auditEntries()
        #expect(audit.contains { $0.action == "download" && $0.detail.contains(stored.png) })
    }

    @Test("The JSON API gives each message's attachment_files, with a /files URL for stored ones")
    func apiListsFiles() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let stored = try await Self.addFiles(to: try SQLiteArchive.open(at: fixture.archivePath))
        try await fixture.serve { client in
            let message = try await client.execute(uri: "/api/messages/\(Self.messageID)", method: .get).json
            let files = try #require(message["message"]?["attachment_files"]?.arrayValue)
            #expect(files.map { $0["key"] } == ["uid:f-png", "uid:f-html", "uid:f-svg", "uid:f-pdf", "uid:f-missing"])
            #expect(files[0]["url"] == .string("/files/\(stored.png)"))
            #expect(files[0]["sha256"] == .string(stored.png))
            #expect(files[0]["status"] == "ok")
            #expect(files[4]["status"] == "listed")
            #expect(files[4]["url"] == .null)
            let page = try await client.execute(uri: "/api/dialogs/\(Self.dialogID)/messages", method: .get).json
            #expect(page["messages"]?.arrayValue?.first?["attachment_files"]?.arrayValue?.count == 5)
            let url = try #require(files[3]["url"]?.stringValue)
            #expect(try await client.execute(uri: url, method: .get).status == .ok)
        }
    }
}
