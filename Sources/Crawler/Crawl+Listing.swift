import QuickBloxClient

extension Crawl {
    /// One reader's dialog list, or why it could not be read.
    struct Listing: Sendable {
        var reader: Int?
        var result: Result<[DialogLister.Listed], any Error>
    }

    /// Reads each reader's dialog list, ``CrawlOptions/concurrency`` lists at a time, and hands them to `merge`
    /// in the readers' order (so the first reader to list a dialog stays its reader, whatever answered first).
    ///
    /// In app scope there is one list per user: one after the other, at 100 ms a response, 100 users took
    /// 10 s before the first message was asked for (and crawl workers waited for that one lister). Lists that
    /// come early wait for the ones before them, never more than twice the concurrency, so memory does not
    /// grow with the number of users. Authentication and cancellation end the run (rethrown); any other error
    /// is that reader's listing.
    func forEachListing(
        of readers: [Int?], createdUpTo runStart: Int, _ merge: (Listing) throws -> Void
    ) async throws {
        let concurrency = max(1, options.concurrency)
        try await withThrowingTaskGroup(of: (Int, Listing).self) { group in
            var started = 0
            var running = 0
            var merged = 0
            var early: [Int: Listing] = [:]
            repeat {
                while running < concurrency, started < readers.count, started - merged < 2 * concurrency {
                    let (offset, reader) = (started, readers[started])
                    group.addTask { try await listing(offset: offset, reader: reader, createdUpTo: runStart) }
                    started += 1
                    running += 1
                }
                guard let (offset, listing) = try await group.next() else { break }
                running -= 1
                early[offset] = listing
                while let next = early.removeValue(forKey: merged) {
                    try merge(next)
                    merged += 1
                }
            } while merged < readers.count
        }
    }

    /// One reader's list, tagged with its place among the readers.
    private func listing(offset: Int, reader: Int?, createdUpTo runStart: Int) async throws -> (Int, Listing) {
        let lister = DialogLister(client: client, onBehalfOf: reader)
        do {
            let dialogs = try await lister.dialogs(createdUpTo: runStart)
            return (offset, Listing(reader: reader, result: .success(dialogs)))
        } catch {
            if reader == nil || Self.endsRun(error) { throw error }
            return (offset, Listing(reader: reader, result: .failure(error)))
        }
    }
}
