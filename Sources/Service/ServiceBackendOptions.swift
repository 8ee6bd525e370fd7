import Archive

/// What the command that chose the storage backend adds to the service: a second backend for the small
/// connections (the audit trail's writer and `/healthz`'s probes), and how a read replica's lag is read.
///
/// The service itself never learns which backend it has: it opens archives through ``ArchiveBackend`` values
/// and asks these closures what only the backend can answer.
public struct ServiceBackendOptions: Sendable {
    /// Opens the audit trail's writer and `/healthz`'s readers (for PostgreSQL: a pool of a connection or two,
    /// apart from the reads' pool); `nil`: the backend the service was given.
    public var upkeep: (any ArchiveBackend)?
    /// How many seconds a reader's data is behind its primary (a streaming replica's replay lag), or `nil` when
    /// the reader is a primary or the backend cannot say. `/healthz` reports it for `--read-url`.
    public var replicationLag: (@Sendable (any ArchiveReader) async throws -> Double?)?

    public init(
        upkeep: (any ArchiveBackend)? = nil,
        replicationLag: (@Sendable (any ArchiveReader) async throws -> Double?)? = nil
    ) {
        self.upkeep = upkeep
        self.replicationLag = replicationLag
    }
}
