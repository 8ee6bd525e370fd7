import Foundation

/// Runs a blocking closure on a new thread, outside Swift concurrency's pool, and awaits its result.
///
/// The shared reader blocks its thread for each statement (``RowFeed``); on a thread of the cooperative pool
/// that would starve the tasks the statement waits for. A thread per read costs tens of microseconds, small
/// beside a statement's round trip.
enum BlockingThread {
    /// The stack of the reader's thread: the query compiler recurses over a query's tree.
    static let stackSize = 8 << 20

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.stackSize = stackSize
            thread.start()
        }
    }
}
