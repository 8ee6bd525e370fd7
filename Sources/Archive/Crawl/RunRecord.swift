/// One row of `runs`.
public struct RunRecord: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// What the run crawled, as given to ``SQLiteArchive/beginRun(scope:query:at:)``.
    public var scope: String?
    /// Unix seconds.
    public var startedAt: Int
    /// Unix seconds; `nil` while ``status`` is ``RunStatus/running``.
    public var endedAt: Int?
    public var status: RunStatus
    public var counts: RunCounts
    public var error: String?

    public init(
        id: Int64, scope: String?, startedAt: Int, endedAt: Int?, status: RunStatus, counts: RunCounts, error: String?
    ) {
        self.id = id
        self.scope = scope
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.counts = counts
        self.error = error
    }
}
