/// The SQL a search runs, for `--explain`: how the query was understood, the statement and its bound
/// arguments, in order.
public struct SearchPlan: Sendable, Hashable {
    /// The one-line reading of the query (``QueryLanguage/QuerySummary``), names as the archive resolved them.
    public var summary: String
    public var sql: String
    /// The arguments as SQL literals (`'text'`, `42`, `NULL`), for reading, never for execution.
    public var arguments: [String]
    /// The storage engine's plan for the statement with those arguments, one line per step, indented by depth
    /// (SQLite's `EXPLAIN QUERY PLAN`, PostgreSQL's `EXPLAIN`): which indexes it walks, what it sorts.
    public var steps: [String]

    public init(summary: String, sql: String, arguments: [String], steps: [String] = []) {
        self.summary = summary
        self.sql = sql
        self.arguments = arguments
        self.steps = steps
    }
}

/// A page of a search with what a person needs to read it, from one consistent read of the archive.
public struct SearchPage: Sendable {
    /// The matches of the page, in the order asked.
    public var hits: [SearchHit]
    /// How many messages match in all.
    public var total: Int
    /// How the query was understood (``QueryLanguage/QuerySummary``).
    public var summary: String

    public init(hits: [SearchHit], total: Int, summary: String) {
        self.hits = hits
        self.total = total
        self.summary = summary
    }
}
