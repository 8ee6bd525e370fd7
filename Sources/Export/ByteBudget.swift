/// A cap on the bytes one export may write, all its files together (staged files, the container, its
/// checksum file): the service's share of the exports folder's quota.
///
/// Spent as bytes are flushed; the write that would go past the limit throws
/// ``ExportError/quotaExceeded(limit:)``, and the export's usual clean-up removes what it had written. One
/// export runs on one thread, so the count needs no lock.
public final class ByteBudget {
    /// The most bytes the export may write.
    public let limit: Int
    /// Bytes written so far.
    public private(set) var spent = 0

    public init(limit: Int) {
        self.limit = limit
    }

    func spend(_ bytes: Int) throws(ExportError) {
        spent += bytes
        if spent > limit { throw .quotaExceeded(limit: limit) }
    }
}
