import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// `has:image` (and `has:photo`) finds attachments typed `image` and `photo` — the type QuickBlox's Android SDK
/// gives images — on every backend; the REST form `attachments.type = image` stays exact.
@Suite("has:image finds image and photo attachments")
struct PhotoAttachmentTests {
    @Test(arguments: TestBackend.all) func imagesAndPhotos(backend: TestBackend) async throws {
        let corpus = try await SearchCorpus.make(seed: 41, count: 60, backend: backend)
        defer { corpus.remove() }
        let base = SearchCorpus.baseTime
        let dialog = corpus.entries[0].dialog
        let photo = Message(
            id: SearchCorpus.objectID(9_101), chatDialogID: dialog.id, text: "look", dateSent: base + 1, senderID: 1,
            recipientID: nil, attachments: [Attachment(type: "photo", id: "p1")], createdAt: base + 1,
            updatedAt: base + 1)
        try await corpus.archive.storeMessages(dialogID: dialog.id, rawItems: [photo.json], cursor: nil, at: base)
        let images = Set(
            corpus.entries.filter { $0.message.attachments.contains { $0.type == "image" } }.map(\.message.id))
        #expect(!images.isEmpty)
        let parser = QueryParser(now: base)
        func ids(_ text: String) async throws -> Set<String> {
            let hits = try await corpus.archive.search(try parser.parse(text), options: SearchOptions(limit: 10_000))
            return Set(hits.map(\.message.id))
        }
        for typed in ["has:image", "has:photo", "has:images", "attachments.type in (image, photo)"] {
            #expect(try await ids(typed) == images.union([photo.id]), "\(typed)")
        }
        #expect(try await ids("attachments.type = image") == images)
        #expect(try await ids("attachments.type = photo") == [photo.id])
        #expect(try await !ids("-has:image").contains(photo.id))
    }
}
