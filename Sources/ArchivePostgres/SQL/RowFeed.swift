import Dispatch
import Logging
import PostgresNIO

/// One statement's rows, handed from postgres-nio (async) to the shared reader's thread (blocking), a batch at
/// a time.
///
/// Written by hand: the bridge runs the other way from what the libraries at hand offer (an async producer, a
/// consumer that must block because SQLite's reads do). Each ``next()`` starts a task that reads up to
/// ``batchSize`` rows and waits for it on a semaphore: the calling thread is never one of Swift concurrency's
/// (``BlockingThread`` makes it), so blocking it starves nothing. Dropping the feed before its end drops the
/// row sequence, and postgres-nio discards the rest of the result.
final class RowFeed: @unchecked Sendable {
    static let batchSize = 512

    private var iterator: PostgresRowSequence.AsyncIterator?

    /// Sends `query` on `connection` and waits for the result to begin.
    init(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) throws {
        let sequence = try Self.hop { try await connection.query(query, logger: logger) }
        iterator = sequence.makeAsyncIterator()
    }

    /// The next rows, `nil` after the last.
    func next() throws -> [PostgresRow]? {
        guard iterator != nil else { return nil }
        let rows = try Self.hop { [self] in
            var rows: [PostgresRow] = []
            while rows.count < Self.batchSize, let row = try await iterator!.next() { rows.append(row) }
            return rows
        }
        if rows.count < Self.batchSize { iterator = nil }
        return rows.isEmpty ? nil : rows
    }

    /// Runs `work` in a task and blocks the calling thread until it ends.
    static func hop<T>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = Outcome<T>()
        Task {
            do { outcome.result = .success(try await work()) } catch { outcome.result = .failure(error) }
            semaphore.signal()
        }
        semaphore.wait()
        return try outcome.result!.get()
    }

    /// The result of a hop, written by its task before the semaphore is signalled and read after the wait.
    private final class Outcome<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }
}
