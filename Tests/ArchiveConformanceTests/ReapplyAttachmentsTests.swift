import Archive
import ArchiveTestSupport
import Export
import Foundation
import QuickBlox
import Testing

/// After an import of a bundle made before an erasure, re-applying the register leaves no attachment row that
/// only erased messages named — on every backend (a crawl with `--attachments files` would fetch it again).
@Suite("Re-applied erasures forget the attachment rows an import brought back")
struct ReapplyAttachmentsTests {
    typealias F = ArchiveFixture

    /// Messages 1…6 (sender 2 wrote 1 and 4); 1 and 5 name a file each.
    static func messages() -> [Message] {
        (1...6).map { number in
            F.message(
                number, text: "text \(number)", offset: number,
                attachments: [1, 5].contains(number)
                    ? [Attachment(type: "image", id: "blob\(number)", uid: "uid-\(number)", name: "f\(number).png")]
                    : [])
        }
    }

    @Test(arguments: TestBackend.all)
    func rowsOfErasedMessagesDoNotComeBack(backend: TestBackend) async throws {
        let old = try await F(backend: backend)
        try await old.write(Self.messages())
        let bundle = old.directory.file("before.tar.gz")
        let everything = try ExportSelection(whereText: nil, dialogID: nil, since: nil, until: nil, now: 0)
        _ = try await BundleExport(selection: everything, container: .tarGz, toolVersion: "t")
            .run(archive: old.archive, to: bundle)

        let fixture = try await F(backend: backend)
        try await fixture.write(Self.messages())
        _ = try await fixture.archive.erase(.user("2"), reason: "req", dryRun: false, at: F.baseTime + 10)
        #expect(try await Self.keys(fixture.archive) == ["uid:uid-5"])
        _ = try await BundleImport().run(bundle: bundle, into: fixture.archive)
        _ = try await fixture.archive.reapplyErasures(keeping: [], at: F.baseTime + 20)
        #expect(try await Self.keys(fixture.archive) == ["uid:uid-5"])
    }

    /// The keys of `attachment_files`, through the reader's list of files to fetch and fetched.
    static func keys(_ archive: any ArchiveWriter) async throws -> [String] {
        try await archive.filesToFetch(after: 0, limit: 1000).map(\.file.key).sorted()
    }
}
