/// A query's boolean structure over full-text terms and field predicates.
///
/// Kept small on purpose: the SQL compiler, the REST pushdown and the tests' reference evaluator
/// all walk it, so it has exactly the five shapes the language can express. `and` and `or` always
/// hold at least two children and never directly contain a node of their own kind (they are
/// flattened); a query of one term is that term.
public indirect enum QueryExpression: Sendable, Hashable {
    /// Every child matches (at least two, flattened).
    case and([QueryExpression])
    /// At least one child matches (at least two, flattened).
    case or([QueryExpression])
    /// The child does not match (`not x`, `-x`).
    case not(QueryExpression)
    /// Full-text search on message text.
    case text(TextTerm)
    /// A filter on one field.
    case predicate(QueryPredicate)
}
