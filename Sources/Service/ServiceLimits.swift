import Foundation

/// What one request, and all requests together, may cost the machine that serves the archive.
///
/// Each limit answers one way of exhausting the service from outside (docs/service.md, "Threat model"):
/// slow queries, many queries at once, exports that fill the disk, connections left half-sent, and login
/// guessing. The defaults suit one moderator team on a small machine; `qbarchive serve --help` names the
/// flag for each.
public struct ServiceLimits: Sendable, Hashable {
    /// How long one archive read (a search, its count, a stats report, a transcript page) may run before it is
    /// stopped with 503 `query_timeout`.
    public var statementTimeout: Duration = .seconds(10)
    /// How many requests may read the archive at once; more wait in line.
    public var concurrentQueries = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// How many requests may wait for a turn; beyond, 429 `busy` with `Retry-After`.
    public var queuedQueries = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// The most bytes the exports folder may hold; an export that would pass it is stopped (507).
    public var exportsMaxBytes = 10 << 30
    /// The most bundles the exports folder may hold before a new export is refused (507).
    public var exportsMaxCount = 100
    /// Bundles older than this many seconds are deleted when the service starts and before each export.
    public var exportsRetention = 7 * 86_400
    /// How long a client has to send a request's head (line and headers), from connecting or from the end
    /// of the previous response; then the connection is closed.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a client has to send a request's body once its head has arrived.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a kept-alive connection may stay silent between requests.
    public var idleTimeout: Duration = .seconds(60)
    /// Failed logins allowed from one address within ``loginWindow`` seconds; then 429 until the window
    /// passes.
    public var loginFailures = 5
    public var loginWindow = 60

    public init() {}

    func validate() throws(ServiceSetupError) {
        func check(_ ok: Bool, _ what: String) throws(ServiceSetupError) {
            if !ok { throw .invalidLimit(what) }
        }
        try check(statementTimeout > .zero, "--query-timeout must be more than 0 seconds")
        try check(concurrentQueries >= 1, "--max-concurrent-queries must be at least 1")
        try check(queuedQueries >= 0, "--max-queued-queries cannot be negative")
        try check(exportsMaxBytes >= 1 << 20, "--exports-max-bytes must be at least 1M")
        try check(exportsMaxCount >= 1, "--exports-max-count must be at least 1")
        try check(exportsRetention >= 60, "--exports-retention must be at least 1m")
    }
}
