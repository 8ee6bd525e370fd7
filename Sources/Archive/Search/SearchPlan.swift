/// The SQL a search runs, for `--explain`: the statement and its bound arguments, in order.
public struct SearchPlan: Sendable, Hashable {
    public var sql: String
    /// The arguments as SQL literals (`'text'`, `42`, `NULL`), for reading, never for execution.
    public var arguments: [String]

    public init(sql: String, arguments: [String]) {
        self.sql = sql
        self.arguments = arguments
    }
}
