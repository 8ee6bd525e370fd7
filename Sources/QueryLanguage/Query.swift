/// A parsed query: its source text and the expression it means.
///
/// The source is kept so that ranges in the expression (and the errors a later stage such as the
/// SQL compiler raises) can be shown against the text the moderator typed.
public struct Query: Sendable, Hashable {
    /// The text the query was parsed from.
    public var source: String
    /// The boolean structure of the query.
    public var root: QueryExpression
    /// Filter words the parser read as text because their colon was missing (`from user42`), for the archive
    /// to check against its users and dialogs.
    public var ambiguities: [QueryAmbiguity]

    /// A query of `root`, read from `source` (empty for a query built in code, as tests do).
    public init(source: String, root: QueryExpression, ambiguities: [QueryAmbiguity] = []) {
        self.source = source
        self.root = root
        self.ambiguities = ambiguities
    }
}
