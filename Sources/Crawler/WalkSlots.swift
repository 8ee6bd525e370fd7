import Synchronization

/// The walks a crawl may have in flight (its `--concurrency`), and how many are free now.
///
/// A dialog's walk holds a slot from its start to its end; the crawl hands a finished walk's slot to the next
/// dialog, and frees it only when no dialog waits. Free slots therefore appear only in a crawl's tail, when the
/// last dialogs run and the rest are done — and a long dialog then borrows them to walk its remaining
/// messages in parts (``Crawl/walkRange(_:from:below:savesCursor:slots:runStart:)``), each part giving its
/// slot back when it ends.
///
/// The count may go below zero for a moment in a shared crawl (a worker that waited for another's dialogs
/// takes its slot back while a part holds it): walks in flight then exceed `--concurrency` by at most the
/// parts borrowed, until they end.
final class WalkSlots: Sendable {
    private let free: Mutex<Int>

    /// - Parameter free: slots not held by any walk.
    init(free: Int) {
        self.free = Mutex(free)
    }

    /// A walk starts on a slot, free or not.
    func take() {
        free.withLock { $0 -= 1 }
    }

    /// A walk ended and nothing waits for its slot.
    func give() {
        free.withLock { $0 += 1 }
    }

    /// Takes up to `count` free slots; returns how many it took (none when none is free).
    func borrow(upTo count: Int) -> Int {
        free.withLock { free in
            let taken = max(0, min(count, free))
            free -= taken
            return taken
        }
    }

    /// Whether a slot is free now.
    var anyFree: Bool { free.withLock { $0 > 0 } }
}
