import Crypto
import Foundation

/// The canonical encoding of a bundle's contents, written and hashed on a thread of its own while the verifier
/// reads, hashes and counts the container on its own (``BundleVerifier``).
///
/// Encoding the contents again — compressing 1.3 GB for a million messages — is about half of a verification's
/// work, and the verifier's own reading the other half: on two cores they run side by side. Steps are handed
/// over in order through a queue of at most ``maxQueuedBytes`` (8 MiB unless a test says otherwise), so memory
/// stays bounded whatever the bundle's size. Written by hand: a bounded hand-off between two threads that both
/// block (the reader in libarchive, the writer in zstd or gzip) is not what `AsyncStream` or the packages at hand
/// offer (``BlockingChannel`` hands over to an async consumer).
final class ContainerRebuild: @unchecked Sendable {
    /// The bytes waiting for the writer at most (a few of the reader's chunks).
    let maxQueuedBytes: Int

    private enum Step {
        case begin(path: String, size: Int, modificationTime: Int)
        case write([UInt8])
        case finish
        case abandon
    }

    private let condition = NSCondition()
    private var steps: [Step] = []
    private var queuedBytes = 0
    /// The writer's outcome: the SHA-256 of the canonical container, or its first error.
    private var outcome: Result<String, ContainerError>?

    /// Starts the writer's thread for a container of `format` in `encoding`.
    init(format: ContainerFormat, encoding: ContainerEncoding, maxQueuedBytes: Int = 8 << 20) {
        self.maxQueuedBytes = maxQueuedBytes
        let thread = Thread { [self] in run(format: format, encoding: encoding) }
        thread.name = "qbarchive-rebuild"
        thread.start()
    }

    /// Begins an entry, as ``ContainerWriter/beginEntry(path:size:modificationTime:)``.
    /// - Throws: The writer's first error, once it has failed.
    func beginEntry(path: String, size: Int, modificationTime: Int) throws(ContainerError) {
        try enqueue(.begin(path: path, size: size, modificationTime: modificationTime), bytes: 0)
    }

    /// Writes bytes of the current entry, as ``ContainerWriter/write(_:)-([UInt8])``; waits while the writer is
    /// ``maxQueuedBytes`` behind.
    /// - Throws: The writer's first error, once it has failed.
    func write(_ bytes: [UInt8]) throws(ContainerError) {
        try enqueue(.write(bytes), bytes: bytes.count)
    }

    /// Ends the container and waits for the writer: the SHA-256 (hex) of the canonical encoding.
    /// - Throws: The writer's first error.
    func finish() throws(ContainerError) -> String {
        try enqueue(.finish, bytes: 0)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let outcome { return try outcome.get() }
            condition.wait()
        }
    }

    /// Stops the writer without ending the container (the verification failed first); nothing after it is
    /// written. Safe after ``finish()``.
    func abandon() {
        condition.lock()
        if outcome == nil {
            steps.append(.abandon)
            condition.broadcast()
        }
        condition.unlock()
    }

    private func enqueue(_ step: Step, bytes: Int) throws(ContainerError) {
        condition.lock()
        defer { condition.unlock() }
        while queuedBytes >= maxQueuedBytes, outcome == nil { condition.wait() }
        if case .failure(let error)? = outcome { throw error }
        steps.append(step)
        queuedBytes += bytes
        condition.broadcast()
    }

    /// The next step, waiting for one.
    private func next() -> Step {
        condition.lock()
        defer { condition.unlock() }
        while steps.isEmpty { condition.wait() }
        let step = steps.removeFirst()
        if case .write(let bytes) = step { queuedBytes -= bytes.count }
        condition.broadcast()
        return step
    }

    private func run(format: ContainerFormat, encoding: ContainerEncoding) {
        var hasher = SHA256()
        var result: Result<String, ContainerError>
        do throws(ContainerError) {
            // Made on this thread: libarchive's writer and the UTF-8 locale it is configured under stay here.
            let writer = try ContainerWriter(format: format, encoding: encoding) { bytes in
                hasher.update(data: bytes)
            }
            steps: while true {
                switch next() {
                case .begin(let path, let size, let time):
                    try writer.beginEntry(path: path, size: size, modificationTime: time)
                case .write(let bytes): try writer.write(bytes)
                case .finish:
                    try writer.finish()
                    break steps
                case .abandon: throw ContainerError(message: "the verification stopped before the end")
                }
            }
            result = .success(BundleManifest.hex(hasher.finalize()))
        } catch {
            result = .failure(error)
        }
        condition.lock()
        outcome = result
        steps.removeAll()
        queuedBytes = 0
        condition.broadcast()
        condition.unlock()
    }
}
