import QuickBlox

/// `field op value(s)`: one filter on a message, its dialog or its sender.
///
/// Named `QueryPredicate` rather than `Predicate`: a public `Predicate` would be ambiguous with
/// Foundation's `Predicate` in every file that imports both modules.
public struct QueryPredicate: Sendable, Hashable {
    /// The field tested.
    public var field: QueryField
    /// The comparison; the parser only produces operators the field allows.
    public var op: FilterOperator
    /// One value, or the list of `in`, `nin` and `all` (a date `in` has exactly one period).
    public var values: [QueryValue]
    /// Character offsets of the whole predicate in the source.
    public var range: Range<Int>

    /// A predicate as the parser builds it; public so generators and tests can build expressions directly.
    public init(field: QueryField, op: FilterOperator, values: [QueryValue], range: Range<Int>) {
        self.field = field
        self.op = op
        self.values = values
        self.range = range
    }
}
