import Foundation

/// A thread of its own for blocking work: an export or a verification writes files, compresses and hashes
/// for minutes, and on the Swift concurrency pool (one thread per core) that would take a thread away from
/// the service's requests.
///
/// ``run(_:)`` runs an async body with this thread as its task executor (SE-0417): everything the body does
/// that is not isolated elsewhere runs here, including the code after each `await` on an archive stream.
/// Written by hand because neither the standard library nor the packages at hand offer a dedicated-thread
/// `TaskExecutor` (NIO's event loops are for non-blocking work only).
public final class OwnThread: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopping = false

    private init() {
        let thread = Thread { [self] in loop() }
        thread.name = "qbarchive-export"
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Runs `body` on a new thread of its own, which ends with it.
    public static func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let executor = OwnThread()
        defer { executor.stop() }
        return try await withTaskExecutorPreference(executor) { try await body() }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty, !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
