/// How far a long archive upgrade has come: a migration that rebuilds an index over every message.
///
/// A backend reports it while it opens an archive written by an older qbarchive; the command shows it on
/// standard error. The upgrade is one transaction: interrupted, it leaves the archive as it was, and the next
/// open starts it again.
public struct UpgradeProgress: Sendable, Hashable {
    /// What is being done, for a person ("rebuilding the word and substring indexes").
    public var step: String
    /// Messages done so far.
    public var done: Int
    /// Messages in all.
    public var total: Int

    public init(step: String, done: Int, total: Int) {
        self.step = step
        self.done = done
        self.total = total
    }
}

/// Receives ``UpgradeProgress`` reports (from the opening thread).
public typealias UpgradeObserver = @Sendable (UpgradeProgress) -> Void
