import ArchiveSQLite
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Service
import Testing

/// Files the service streams (stored attachments, export bundles) are regular files under their folder,
/// reached without a symbolic link, and sent with their own length; names are isolated in pages.
@Suite("Served files: no symbolic links, the file's own length; bidi isolation", .serialized)
struct FileSafetyTests {
    static let secret = "SECRET-BEHIND-A-LINK"

    @Test func aLinkPlantedInTheStoreOrTheExportsFolderIsNotFollowed() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let archive = try SQLiteArchive.open(at: fixture.archivePath)
        let stored = try await FileServingTests.addFiles(to: archive)
        let secretPath = fixture.path("secret.txt")
        try Self.secret.write(toFile: secretPath, atomically: true, encoding: .utf8)
        // The PNG's file is replaced by a link; the PDF's whole directory by a link to a directory holding
        // a file of the same name.
        let png = archive.fileStore.path(for: stored.png)
        try FileManager.default.removeItem(atPath: png)
        try FileManager.default.createSymbolicLink(atPath: png, withDestinationPath: secretPath)
        let pdf = archive.fileStore.path(for: stored.pdf)
        let pdfDirectory = (pdf as NSString).deletingLastPathComponent
        let elsewhere = fixture.path("elsewhere")
        try FileManager.default.moveItem(atPath: pdfDirectory, toPath: elsewhere)
        try Self.secret.write(
            toFile: elsewhere + "/" + (pdf as NSString).lastPathComponent, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: pdfDirectory, withDestinationPath: elsewhere)
        // An export name that is a link to the archive.
        try FileManager.default.createDirectory(atPath: fixture.path("exports"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: fixture.path("exports/leak.tar.gz"), withDestinationPath: fixture.archivePath)
        try await fixture.serve { client in
            for uri in ["/files/\(stored.png)", "/files/\(stored.pdf)", "/api/exports/leak.tar.gz"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notFound, "\(uri)")
                #expect(!response.text.contains(Self.secret))
            }
            #expect(try await client.execute(uri: "/files/\(stored.html)", method: .get).status == .ok)
        }
    }

    @Test func theLengthSentIsTheFilesOwn() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let archive = try SQLiteArchive.open(at: fixture.archivePath)
        let stored = try await FileServingTests.addFiles(to: archive)
        // The file on disk is shorter than the archive recorded (damaged store): the answer is still well-formed.
        try Data("%PDF".utf8).write(to: URL(fileURLWithPath: archive.fileStore.path(for: stored.pdf)))
        try await fixture.serve { client in
            let response = try await client.execute(uri: "/files/\(stored.pdf)", method: .get)
            #expect(response.status == .ok)
            #expect(response.headers[.contentLength] == "4")
            #expect(Array(buffer: response.body) == Array("%PDF".utf8))
        }
    }

    @Test func namesAndTextAreIsolatedFromTheirSurroundings() async throws {
        let fixture = try await ServiceFixture.make()
        defer { fixture.remove() }
        let archive = try SQLiteArchive.open(at: fixture.archivePath)
        let override = "\u{202E}gnp.exe\u{202C}"
        let now = ArchiveTime.now()
        try await archive.storeUsers(
            rawItems: [User(id: 991, login: "rtl", fullName: "admin" + override, createdAt: 0, updatedAt: 0).json])
        try await archive.storeDialogs(rawItems: [
            Dialog(
                id: "0000000000000000000b1d10", type: .group, name: "Room" + override, userID: 991,
                occupantIDs: [991], createdAt: now - 10, updatedAt: now
            ).json
        ])
        let message = Message(
            id: "0000000000000000000b1d11", chatDialogID: "0000000000000000000b1d10", text: "refund " + override,
            dateSent: now - 5, senderID: 991, recipientID: nil, attachments: [], readIDs: [], createdAt: now - 5,
            updatedAt: now - 5, extra: [:])
        _ = try await archive.storeMessages(dialogID: "0000000000000000000b1d10", rawItems: [message.json], cursor: nil)
        try await fixture.serve { client in
            let search = try await client.execute(uri: "/search?q=refund", method: .get).text
            #expect(search.contains("<bdi>Room" + override + "</bdi>"))
            #expect(search.contains("<bdi>admin" + override + "</bdi>"))
            #expect(search.contains("<td class=\"text\" dir=\"auto\">"))
            let transcript = try await client.execute(uri: "/dialogs/0000000000000000000b1d10", method: .get).text
            #expect(transcript.contains("<h1><bdi>Room" + override + "</bdi></h1>"))
            #expect(transcript.contains("<div class=\"body\" dir=\"auto\">"))
            let title = try #require(transcript.range(of: "<title>").map { transcript[$0.upperBound...] })
            #expect(!title.prefix(80).contains("\u{202E}"))
            let dialogs = try await client.execute(uri: "/dialogs", method: .get).text
            #expect(dialogs.contains("<bdi>Room" + override + "</bdi>"))
        }
    }
}
