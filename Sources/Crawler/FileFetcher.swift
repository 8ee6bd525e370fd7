import Archive
import Foundation
import Logging
import QuickBlox
import QuickBloxClient
import Synchronization

/// Downloads the files the archive lists into its content-addressed store, beside the message crawl.
///
/// It walks `attachment_files` forward by row id while messages are being paged, so files referenced by
/// pages stored during the run are fetched in the same run, and stops once the message crawl has ended
/// and nothing is left. Its own concurrency limit (``AttachmentOptions/concurrency``) keeps downloads
/// from taking every connection from message paging; the API requests it makes (one redirect per file)
/// share the client's pacing. A file is never stored until its bytes are all there and hashed; a file
/// stored already (status `ok`) is never asked for again.
struct FileFetcher: Sendable {
    let client: QuickBloxClient
    let archive: any ArchiveWriter
    let options: AttachmentOptions
    let logger: Logger

    /// One file's outcome; `nil` when the run was cancelled before it ended.
    struct Result: Sendable {
        var key: String
        var outcome: FetchOutcome?
    }

    /// Set once message paging has finished; the fetcher then drains what is listed and stops.
    final class Completion: Sendable {
        private let flag = Atomic<Bool>(false)
        func finish() { flag.store(true, ordering: .releasing) }
        var isFinished: Bool { flag.load(ordering: .acquiring) }
    }

    func run(until messages: Completion) async throws -> FileTally {
        archive.fileStore.removeLeftovers()
        var tally = FileTally()
        var after: Int64 = 0
        try await withThrowingTaskGroup(of: Result.self) { group in
            var running = 0
            while !Task.isCancelled {
                // Read before the query: whatever was listed before paging ended is in this batch or a later one.
                let pagingEnded = messages.isFinished
                let batch = try await archive.filesToFetch(after: after, limit: 200)
                for item in batch {
                    after = item.id
                    if running >= max(1, options.concurrency), let result = try await group.next() {
                        running -= 1
                        tally.add(result)
                    }
                    group.addTask { try await fetch(item.file) }
                    running += 1
                }
                if batch.isEmpty {
                    if pagingEnded { break }
                    try? await Task.sleep(for: .milliseconds(100))
                }
            }
            while let result = try await group.next() { tally.add(result) }
        }
        return tally
    }

    /// Fetches one file (or decides without a request that it will not) and records the outcome.
    func fetch(_ file: ArchivedFile) async throws -> Result {
        let location: FileLocation
        var announcedSize: Int?
        if file.uid == nil, let blobID = file.blobID, let id = Int(blobID), id > 0 {
            // A numeric blob id alone: its record gives the uid that downloads go by, and the size.
            do {
                let blob = try await client.blob(id: id)
                location = .blob(blob.uid)
                announcedSize = blob.size
            } catch {
                if case .cancelled = error { return Result(key: file.key, outcome: nil) }
                if error.status == 404 {
                    return try await record(file, .gone(reason: "GET /blobs/\(id).json: HTTP 404"))
                }
                let attempts = if case .retriesExhausted(_, let attempts, _) = error { attempts } else { 1 }
                return try await record(file, .failed(reason: error.localizedDescription, attempts: attempts))
            }
        } else if let id = file.uid ?? file.blobID {
            location = .blob(id)
        } else if let url = file.url {
            guard let host = FileLocation.host(of: url) else {
                return try await record(file, .gone(reason: "the attachment's url is not an http(s) URL"))
            }
            if host == FileLocation.host(of: client.configuration.endpoint) {
                location = .url(url, authenticated: true)
            } else if options.externalURLs {
                location = .url(url, authenticated: false)
            } else {
                return try await record(file, .external)
            }
        } else {
            return Result(key: file.key, outcome: nil)
        }
        if let size = announcedSize ?? file.declaredSize ?? (file.status == .tooLarge ? file.size : nil),
            size > options.maxBytes
        {
            return try await record(file, .tooLarge(size: size, limit: options.maxBytes))
        }
        let writer = try archive.fileStore.makeWriter()
        do {
            let downloaded = try await client.download(
                location, into: FileSink(writer), maxBytes: options.maxBytes, attempts: options.attempts)
            guard downloaded.bytes == writer.size else {
                writer.discard()
                return try await record(
                    file,
                    .failed(reason: "wrote \(writer.size) of \(downloaded.bytes) bytes", attempts: downloaded.attempts))
            }
            let (sha256, size) = try writer.commit()
            return try await record(
                file,
                .stored(sha256: sha256, size: size, contentType: downloaded.contentType, source: location.source))
        } catch let error as DownloadError {
            writer.discard()
            switch error {
            case .cancelled: return Result(key: file.key, outcome: nil)
            case .gone(let detail): return try await record(file, .gone(reason: detail))
            case .tooLarge(let size): return try await record(file, .tooLarge(size: size, limit: options.maxBytes))
            case .failed(let attempts, _):
                return try await record(file, .failed(reason: error.localizedDescription, attempts: attempts))
            case .refused:
                return try await record(file, .failed(reason: error.localizedDescription, attempts: 1))
            case .local(let detail):
                // A full or read-only disk fails every file alike: stop the run rather than mark them all.
                throw FileFetchError.store(detail)
            }
        } catch {
            writer.discard()
            throw error
        }
    }

    private func record(_ file: ArchivedFile, _ outcome: FetchOutcome) async throws -> Result {
        if case .failed(let reason, _) = outcome {
            logger.warning("attachment not downloaded", metadata: ["file": "\(file.key)", "reason": "\(reason)"])
        }
        // Recorded even when the run is being cancelled: the bytes are stored, the row must say so.
        try await Task { try await archive.recordFetch(key: file.key, outcome: outcome) }.value
        return Result(key: file.key, outcome: outcome)
    }
}

/// Why file fetching stopped the run.
public enum FileFetchError: Error, LocalizedError, Sendable {
    /// The file store cannot be written.
    case store(String)

    public var errorDescription: String? {
        switch self {
        case .store(let detail): "the attachment store cannot be written: \(detail)"
        }
    }
}
