import Synchronization

/// A cap on the bytes one export may write, all its files together (staged files, the container, its
/// checksum file): the service's share of the exports folder's quota.
///
/// Spent as bytes are flushed; the write that would go past the limit throws
/// ``ExportError/quotaExceeded(limit:)``, and the export's usual clean-up removes what it had written. A bundle
/// writes its message files on a thread of their own beside the staging loop (``MessageFilesWriter``), so the
/// count is kept under a lock.
public final class ByteBudget: Sendable {
    /// The most bytes the export may write.
    public let limit: Int
    private let count = Mutex(0)

    /// Bytes written so far.
    public var spent: Int { count.withLock { $0 } }

    public init(limit: Int) {
        self.limit = limit
    }

    func spend(_ bytes: Int) throws(ExportError) {
        let spent = count.withLock { count in
            count += bytes
            return count
        }
        if spent > limit { throw .quotaExceeded(limit: limit) }
    }
}
