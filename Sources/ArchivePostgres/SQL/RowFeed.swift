import Dispatch
import Logging
import PostgresNIO
import Synchronization

/// One statement's rows, handed from postgres-nio (async) to the shared reader's thread (blocking), a batch at
/// a time, through a server-side cursor.
///
/// The shared reader may run a statement while another's rows are still being read (an export looks up the
/// files of each batch between cursor steps), as SQLite allows; PostgreSQL's protocol runs one statement at a
/// time per connection, so each statement is a cursor (`DECLARE … NO SCROLL CURSOR`, then `FETCH` by
/// ``batchSize``): every round trip completes, and statements interleave. The reads always run inside a
/// transaction (``PostgresSQLDatabase``), where cursors live.
///
/// Written by hand: the bridge runs the other way from what the libraries at hand offer (an async producer, a
/// consumer that must block because SQLite's reads do). Each round trip is a task the calling thread waits
/// for on a semaphore: that thread is never one of Swift concurrency's (``BlockingThread``), so blocking it
/// starves nothing. While the reader works through one batch, the next is already being fetched (a statement the
/// reader runs meanwhile waits behind it on the connection): reading and fetching overlap, as SQLite's stepping
/// and a caller's work cannot, but a round trip each does here.
final class RowFeed: @unchecked Sendable {
    static let batchSize = 512
    /// Numbers the cursors of this process (names need only be unique within a transaction).
    private static let counter = Atomic<Int>(0)

    private let connection: PostgresConnection
    private let logger: Logger
    private let name: String
    private var open = true
    /// The next batch's `FETCH`, sent when the batch before it came back full.
    private var ahead: Pending<[PostgresRow]>?

    /// Declares the cursor of `query` on `connection`.
    init(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) throws {
        self.connection = connection
        self.logger = logger
        name = "qbarchive_cursor_\(Self.counter.add(1, ordering: .relaxed).newValue)"
        let declare = PostgresQuery(
            unsafeSQL: "DECLARE \(name) NO SCROLL CURSOR FOR " + query.sql, binds: query.binds)
        try Self.hop { [connection, logger] in try await connection.query(declare, logger: logger).collect() }
    }

    deinit {
        // Ended early (a first row was all the reader wanted): close the cursor after whatever is queued.
        guard open else { return }
        let close = PostgresQuery(unsafeSQL: "CLOSE \(name)")
        Task { [connection, logger] in _ = try? await connection.query(close, logger: logger) }
    }

    /// The next rows, `nil` after the last.
    func next() throws -> [PostgresRow]? {
        guard open else { return nil }
        let pending = ahead ?? fetch()
        ahead = nil
        let rows = try pending.wait()
        if rows.count < Self.batchSize {
            open = false
            let close = PostgresQuery(unsafeSQL: "CLOSE \(name)")
            try Self.hop { [connection, logger] in _ = try await connection.query(close, logger: logger) }
        } else {
            ahead = fetch()
        }
        return rows.isEmpty ? nil : rows
    }

    /// Ends the cursor on the reader's thread, before its transaction can end: waits for a `FETCH` sent ahead
    /// (whose rows the reader no longer wants), then closes it. Nothing of this cursor is left queued on the
    /// connection when it goes back to the pool.
    func finish() {
        guard open else { return }
        open = false
        _ = try? ahead?.wait()
        ahead = nil
        let close = PostgresQuery(unsafeSQL: "CLOSE \(name)")
        _ = try? Self.hop { [connection, logger] in try await connection.query(close, logger: logger).collect() }
    }

    /// Sends the next `FETCH`.
    private func fetch() -> Pending<[PostgresRow]> {
        let fetch = PostgresQuery(unsafeSQL: "FETCH \(Self.batchSize) FROM \(name)")
        return Pending { [connection, logger] in try await connection.query(fetch, logger: logger).collect() }
    }

    /// Runs `work` in a task and blocks the calling thread until it ends.
    static func hop<T>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        try Pending(work).wait()
    }

    /// Work running in a task, whose result a blocking thread waits for: written by the task before the
    /// semaphore is signalled, read after the wait.
    private final class Pending<T>: @unchecked Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        private var result: Result<T, any Error>?

        init(_ work: @escaping @Sendable () async throws -> T) {
            Task {
                do { self.result = .success(try await work()) } catch { self.result = .failure(error) }
                self.semaphore.signal()
            }
        }

        func wait() throws -> T {
            semaphore.wait()
            return try result!.get()
        }
    }
}
