import ArchiveSQLite
import Export
import Foundation
import QuickBlox

/// A small archive whose messages attach files in every state: stored (one shared by two messages, one
/// only in an earlier version of an edited message), too large, never downloaded, gone, on another host,
/// and a location that names no file. The stored files are a few KB of deterministic bytes, written
/// through the archive's real file store.
package struct AttachmentFixture: Sendable {
    package static let baseTime = 1_709_294_400
    package static let dialogA = "65e1a0000000000000000a01"
    package static let dialogB = "65e1a0000000000000000b02"

    package let directory: URL
    package let archive: SQLiteArchive
    /// The stored files' bytes by attachment key (`uid:…`).
    package let stored: [String: [UInt8]]

    package func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    package func remove() { try? FileManager.default.removeItem(at: directory) }

    /// SHA-256 (hex) of a stored file by key.
    package func sha256(_ key: String) -> String { ExportReading.sha256(Data(stored[key]!)) }

    /// Stored file sizes: `big` makes the edited message's new file larger than a 100 KB part.
    package static func make(big: Bool = false) async throws -> AttachmentFixture {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attach-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let archive = try SQLiteArchive.create(
            at: directory.appendingPathComponent("archive.sqlite").path, now: baseTime)
        try await archive.storeDialogs(
            rawItems: [dialogA, dialogB].map {
                Dialog(
                    id: $0, type: .group, name: "Room \($0.suffix(2))", userID: 1, occupantIDs: [1, 2],
                    createdAt: baseTime - 100, updatedAt: baseTime
                ).json
            }, at: baseTime)

        let photo = Attachment(type: "image", uid: "u-photo", name: "photo.jpg", size: 3000)
        let shared = Attachment(type: "file", uid: "u-shared", name: "report.pdf")
        let video = Attachment(type: "video", uid: "u-big", name: "party.mp4", size: 5_000_000)
        let listed = Attachment(type: "audio", uid: "u-listed", name: "voice.ogg")
        let gone = Attachment(type: "file", id: "4711", name: "old.txt")
        let external = Attachment(type: "image", url: "https://elsewhere.example/x.png")
        let location = Attachment(type: "location", extra: ["latitude": 48.1, "longitude": 11.5])
        let before = Attachment(type: "image", uid: "u-old", name: "draft.png")
        let after = Attachment(type: "image", uid: "u-new", name: "final.png")
        func message(_ number: Int, _ dialog: String, _ text: String?, _ attachments: [Attachment], edit: Int = 0)
            -> JSONValue
        {
            Message(
                id: String(format: "65e1b00000000000000000%02x", number), chatDialogID: dialog, text: text,
                dateSent: baseTime + number * 60, senderID: 1 + number % 2, recipientID: 0, attachments: attachments,
                createdAt: baseTime + number * 60, updatedAt: baseTime + number * 60 + edit
            ).json
        }
        try await archive.storeMessages(
            dialogID: dialogA,
            rawItems: [
                message(1, dialogA, "the photo", [photo]), message(2, dialogA, nil, [shared, shared]),
                message(3, dialogA, "too big to keep", [video]), message(4, dialogA, "voice note", [listed]),
                message(5, dialogA, "gone and elsewhere", [gone, external, location]),
            ], cursor: nil, at: baseTime + 1000)
        try await archive.storeMessages(
            dialogID: dialogB,
            rawItems: [message(6, dialogB, "same report", [shared]), message(7, dialogB, "draft", [before])],
            cursor: nil, at: baseTime + 1000)
        // The draft is edited to attach another file: the first one lives on in the revision only.
        try await archive.storeMessages(
            dialogID: dialogB, rawItems: [message(7, dialogB, "final", [after], edit: 30)], cursor: nil,
            at: baseTime + 2000)

        var stored: [String: [UInt8]] = [:]
        let sizes = [
            "uid:u-photo": 3000, "uid:u-shared": 20_000, "uid:u-old": 30_000, "uid:u-new": big ? 120_000 : 700,
        ]
        let types = ["uid:u-photo": "image/jpeg", "uid:u-shared": "application/pdf", "uid:u-old": "image/png"]
        for (key, size) in sizes.sorted(by: { $0.key < $1.key }) {
            let bytes = Self.bytes(size, seed: key)
            let writer = try archive.fileStore.makeWriter()
            guard bytes.withUnsafeBytes({ writer.write($0) }) else { throw writer.failure! }
            let (sha256, written) = try writer.commit()
            try await archive.recordFetch(
                key: key,
                outcome: .stored(
                    sha256: sha256, size: written, contentType: types[key], source: "GET /blobs/\(key.dropFirst(4))"),
                at: baseTime + 3000)
            stored[key] = bytes
        }
        try await archive.recordFetch(key: "uid:u-big", outcome: .tooLarge(size: 5_000_000, limit: 1_000_000))
        try await archive.recordFetch(key: "id:4711", outcome: .gone(reason: "404"))
        try await archive.recordFetch(key: "url:https://elsewhere.example/x.png", outcome: .external)
        return AttachmentFixture(directory: directory, archive: archive, stored: stored)
    }

    /// Deterministic, incompressible bytes (a linear congruential generator seeded from `seed`).
    package static func bytes(_ count: Int, seed: String) -> [UInt8] {
        var state = UInt64(truncatingIfNeeded: seed.utf8.reduce(5381) { ($0 &* 33) &+ Int($1) })
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// Every entry of a container, in order, with its bytes.
    package static func entries(_ path: String) throws -> [(path: String, bytes: [UInt8])] {
        let reader = try ContainerReader(path: path)
        var entries: [(path: String, bytes: [UInt8])] = []
        while let entry = try reader.nextEntry() {
            var bytes: [UInt8] = []
            while true {
                let chunk = try reader.read()
                if chunk.isEmpty { break }
                bytes += chunk
            }
            entries.append((entry.path, bytes))
        }
        return entries
    }
}
