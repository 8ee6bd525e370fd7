import Archive
import ArchiveTestSupport
import Foundation
import QueryLanguage
import QuickBlox
import Testing

/// `is:deleted` is "deleted for everyone": a message tombstoned itself, or one whose whole dialog was deleted for
/// everyone (QuickBlox's `force=1` on a dialog takes its messages from every occupant's history) — on every
/// backend, in search and count, negated too; a dialog only hidden by some users deletes nothing.
@Suite("is:deleted includes the messages of a dialog deleted for everyone")
struct DeletedDialogSearchTests {
    @Test(arguments: TestBackend.all) func aDialogDeletedForEveryoneDeletesItsMessages(backend: TestBackend)
        async throws
    {
        let corpus = try await SearchCorpus.make(seed: 51, count: 200, backend: backend)
        defer { corpus.remove() }
        let dialogs = Array(Set(corpus.entries.map(\.dialog.id))).sorted()
        try #require(dialogs.count >= 2)
        let gone = dialogs[0]
        #expect(try await corpus.archive.tombstoneDialog(id: gone, at: SearchCorpus.baseTime + 40))
        // Hidden by one user for themselves ("delete for me"): deleted for no one.
        _ = try await corpus.archive.recordDialogHidden(id: dialogs[1], for: 1, at: SearchCorpus.baseTime + 41)
        let parser = QueryParser(now: SearchCorpus.baseTime)
        func ids(_ text: String) async throws -> Set<String> {
            let query = try parser.parse(text)
            let hits = try await corpus.archive.search(query, options: SearchOptions(limit: 10_000))
            #expect(try await corpus.archive.count(query) == hits.count, "\(text)")
            return Set(hits.map(\.message.id))
        }
        let all = Set(corpus.entries.map(\.message.id))
        let deleted = Set(corpus.entries.filter { $0.deleted || $0.dialog.id == gone }.map(\.message.id))
        #expect(deleted.count > corpus.entries.filter(\.deleted).count)
        #expect(try await ids("is:deleted") == deleted)
        #expect(try await ids("deleted = true") == deleted)
        #expect(try await ids("-is:deleted") == all.subtracting(deleted))
        #expect(try await ids("deleted = false") == all.subtracting(deleted))
        #expect(
            try await ids("is:deleted in:\(dialogs[1])")
                == deleted.intersection(
                    Set(corpus.entries.filter { $0.dialog.id == dialogs[1] }.map(\.message.id))))
    }
}
