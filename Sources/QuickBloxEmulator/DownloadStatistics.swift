import QuickBlox

/// What the Content API served, for `/_emulator/stats`: redirects handed out, downloads
/// started, bytes and chunks written, and the largest chunk (which shows that a file is
/// streamed, never held whole).
actor DownloadStatistics {
    private(set) var redirects = 0
    private(set) var downloads = 0
    private(set) var bytes = 0
    private(set) var chunks = 0
    private(set) var largestChunk = 0
    private(set) var refused = 0

    func redirected() { redirects += 1 }

    func started() { downloads += 1 }

    func refusedOne() { refused += 1 }

    func wrote(_ count: Int) {
        bytes += count
        chunks += 1
        largestChunk = max(largestChunk, count)
    }

    /// `{"redirects","downloads","bytes","chunks","largest_chunk","refused"}`.
    var json: JSONValue {
        [
            "redirects": .int(redirects), "downloads": .int(downloads), "bytes": .int(bytes), "chunks": .int(chunks),
            "largest_chunk": .int(largestChunk), "refused": .int(refused),
        ]
    }
}
