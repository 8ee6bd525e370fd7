import Logging
import PostgresNIO

/// The single-crawler lock of a PostgreSQL archive: a session-level advisory lock, held on one pooled
/// connection for as long as the crawl runs, the counterpart of a SQLite archive's lock file.
///
/// The server releases it when the session ends, so a crawl killed at any instant leaves no stale lock.
/// Crawl workers that share one crawl through dialog leases (``Archive/SharedCrawlArchive``) hold it shared;
/// a crawl that must be alone (`--reconcile`, `--where`, `--dialog`, `--attachments files`) holds it exclusive,
/// so it neither starts while workers run nor lets them start while it runs.
public final class PostgresCrawlLock: Sendable {
    /// The advisory lock's key: "qbarchive" in ASCII, truncated to 63 bits; the migrations use another.
    static let key: Int64 = 0x7162_6172_6368_6976

    private let release: AsyncStream<Void>.Continuation
    private let holder: Task<Void, Never>

    private init(release: AsyncStream<Void>.Continuation, holder: Task<Void, Never>) {
        self.release = release
        self.holder = holder
    }

    /// Takes the lock of `archive`, or returns `nil` at once when another session holds it.
    static func acquire(on client: PostgresClient, shared: Bool, logger: Logger) async throws -> PostgresCrawlLock? {
        let (signal, release) = AsyncStream<Void>.makeStream()
        let (outcome, report) = AsyncThrowingStream<Bool, any Error>.makeStream()
        let key = Self.key
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    var got = false
                    let take: PostgresQuery =
                        shared ? "SELECT pg_try_advisory_lock_shared(\(key))" : "SELECT pg_try_advisory_lock(\(key))"
                    for try await value in try await connection.query(take, logger: logger).decode(Bool.self) {
                        got = value
                    }
                    report.yield(got)
                    report.finish()
                    guard got else { return }
                    for await _ in signal { break }
                    let release: PostgresQuery =
                        shared ? "SELECT pg_advisory_unlock_shared(\(key))" : "SELECT pg_advisory_unlock(\(key))"
                    _ = try? await connection.query(release, logger: logger)
                }
            } catch {
                report.finish(throwing: error)
            }
        }
        var got = false
        for try await value in outcome { got = value }
        guard got else {
            release.finish()
            await holder.value
            return nil
        }
        return PostgresCrawlLock(release: release, holder: holder)
    }

    /// Releases the lock and returns its connection to the pool.
    public func unlock() async {
        release.yield()
        release.finish()
        await holder.value
    }
}

extension PostgresArchive {
    /// Takes the archive's crawl lock, or returns `nil` when another crawl holds it: `shared` for a worker of a
    /// shared crawl (other workers hold it too), exclusive for a crawl that must be alone.
    public func lockForCrawl(shared: Bool = false) async throws -> PostgresCrawlLock? {
        try await PostgresCrawlLock.acquire(on: client, shared: shared, logger: logger)
    }
}
