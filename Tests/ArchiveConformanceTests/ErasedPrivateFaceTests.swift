import Archive
import ArchiveTestSupport
import Foundation
import QuickBlox
import Testing

/// A private dialog's name and photo are, in most apps, the other person's: erasing a person clears them in the
/// person's private dialogs, and later crawls store them cleared — on every backend, the same bytes.
@Suite("Erasing a person clears the name and photo of their private dialogs")
struct ErasedPrivateFaceTests {
    typealias F = ArchiveFixture

    static let dialogs = [
        // Private, with user 2: named after them.
        Dialog(
            id: F.objectID(0xA1), type: .private, name: "Bob Smith", photo: "https://cdn.example/bob.jpg", userID: 1,
            occupantIDs: [1, 2], createdAt: F.baseTime, updatedAt: F.baseTime),
        // Private, without user 2: kept.
        Dialog(
            id: F.objectID(0xA2), type: .private, name: "Carol Jones", photo: "https://cdn.example/carol.jpg",
            userID: 1, occupantIDs: [1, 3], createdAt: F.baseTime, updatedAt: F.baseTime),
        // A group with user 2: its name is the group's, kept.
        Dialog(
            id: F.objectID(0xA3), type: .group, name: "Team", photo: "https://cdn.example/team.jpg", userID: 1,
            occupantIDs: [1, 2, 3], createdAt: F.baseTime, updatedAt: F.baseTime),
    ]

    static func stored(_ archive: any ArchiveReader) async throws -> [String: ArchivedDialog] {
        try await archive.withSnapshot { snapshot in
            var found: [String: ArchivedDialog] = [:]
            for try await batch in snapshot.dialogs(ids: dialogs.map(\.id)) {
                for dialog in batch { found[dialog.id] = dialog }
            }
            return found
        }
    }

    @Test func clearedAtErasureAndOnEveryLaterCrawl() async throws {
        var records: [[String]] = []
        for backend in TestBackend.all {
            let fixture = try await F(backend: backend)
            try await fixture.archive.storeDialogs(rawItems: Self.dialogs.map(\.json), at: F.baseTime)
            try await fixture.write([F.message(1, text: "hi", offset: 1)])  // sender 2
            _ = try await fixture.archive.erase(.user("2"), reason: "req", dryRun: false, at: F.baseTime + 10)
            for round in 0..<2 {
                let stored = try await Self.stored(fixture.archive)
                let bob = try #require(stored[F.objectID(0xA1)])
                #expect(bob.name == nil && bob.photo == nil, "\(backend) round \(round)")
                #expect(!bob.raw.contains("Bob Smith") && !bob.raw.contains("bob.jpg"), "\(bob.raw)")
                #expect(stored[F.objectID(0xA2)]?.name == "Carol Jones")
                #expect(stored[F.objectID(0xA3)]?.name == "Team" && stored[F.objectID(0xA3)]?.photo != nil)
                records.append(Self.dialogs.map { stored[$0.id]?.raw ?? "" })
                // The server keeps sending the name and photo: a later crawl stores them cleared.
                try await fixture.archive.storeDialogs(rawItems: Self.dialogs.map(\.json), at: F.baseTime + 20)
            }
        }
        #expect(Set(records).count == 1, "every backend and round stores the same records")
    }
}
