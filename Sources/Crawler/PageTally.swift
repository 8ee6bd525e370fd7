import Archive
import Synchronization

/// What the pages of one dialog stored in this run, added up as they are stored.
///
/// A dialog's walk returns its counts only when it ends; one that fails midway (or hands over to another reader,
/// ``Crawl/outcome(of:since:runStart:slots:)``) has stored pages all the same, and the run's totals must count
/// them. Shared by the parts of a walk that run at once, hence a lock.
final class PageTally: Sendable {
    private let counts = Mutex(PageCounts())

    /// Adds a stored page's counts.
    func add(_ stored: PageCounts) {
        counts.withLock { $0.add(stored) }
    }

    /// Everything stored so far.
    var total: PageCounts { counts.withLock { $0 } }
}
