/// Lets a fixed number of requests read the archive at once and a bounded number wait for their turn.
///
/// Every archive read is also bounded in time (``ServiceLimits/statementTimeout``), so a waiting request
/// gets its turn within a bounded time; a request that finds the line full is refused at once with 429
/// and `Retry-After` rather than queued without end.
actor WorkLimiter {
    private let capacity: Int
    private let queueLimit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(capacity: Int, queueLimit: Int) {
        self.capacity = capacity
        self.queueLimit = queueLimit
    }

    /// Takes a turn, waiting for one when all are in use; `false` when the line is full.
    func acquire() async -> Bool {
        if running < capacity {
            running += 1
            return true
        }
        guard waiting.count < queueLimit else { return false }
        await withCheckedContinuation { waiting.append($0) }
        return true  // the turn was handed over by `release()`
    }

    /// Gives the turn to the first in line, or back.
    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Requests reading now, and waiting.
    var load: (running: Int, waiting: Int) { (running, waiting.count) }
}
