import Logging
import PostgresNIO

/// The single-crawler lock of a PostgreSQL archive: a session-level advisory lock, held on one pooled
/// connection for as long as the crawl runs, the counterpart of a SQLite archive's lock file.
///
/// The server releases it when the session ends, so a crawl killed at any instant leaves no stale lock.
/// (Several crawl workers sharing one archive through dialog leases is later work of issue 22; until then one
/// crawl at a time, as on SQLite.)
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
    static func acquire(on client: PostgresClient, logger: Logger) async throws -> PostgresCrawlLock? {
        let (signal, release) = AsyncStream<Void>.makeStream()
        let (outcome, report) = AsyncThrowingStream<Bool, any Error>.makeStream()
        let key = Self.key
        let holder = Task {
            do {
                try await client.withConnection { connection in
                    var got = false
                    for try await value in try await connection.query(
                        "SELECT pg_try_advisory_lock(\(key))", logger: logger
                    ).decode(Bool.self) { got = value }
                    report.yield(got)
                    report.finish()
                    guard got else { return }
                    for await _ in signal { break }
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger)
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
    /// Takes the archive's crawl lock, or returns `nil` when another crawl holds it.
    public func lockForCrawl() async throws -> PostgresCrawlLock? {
        try await PostgresCrawlLock.acquire(on: client, logger: logger)
    }
}
