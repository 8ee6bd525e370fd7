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
    /// The `--where` query of a targeted run.
    public var query: String?

    public init(
        id: Int64, scope: String?, startedAt: Int, endedAt: Int?, status: RunStatus, counts: RunCounts, error: String?,
        query: String? = nil
    ) {
        self.id = id
        self.scope = scope
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.status = status
        self.counts = counts
        self.error = error
        self.query = query
    }

    /// Whether the run read everything its scope reads: no `--where` query, no dialog list (``RunScope``). Only
    /// such a run is a backup for `status --check`.
    public var isWhole: Bool { query == nil && RunScope.isWhole(scope) }
}
