/// A word that names a filter followed by a value without the colon: `from user42`, `in general`.
///
/// The parser reads it as two words to search for (`from` is also an English word), and records it here; the
/// archive, which knows the users and dialogs, refuses the query when the value names one of them, so that
/// `from user42` never quietly searches for the words "from" and "user42" when user42 exists
/// (``QueryError`` "write from:user42").
public struct QueryAmbiguity: Sendable, Hashable {
    /// The field the word would filter: sender, recipient or dialog.
    public var field: QueryField
    /// The word as typed (`from`, `to`, `in`, `sender`, …).
    public var word: String
    /// The value as typed.
    public var value: String
    /// Character offsets of the word and the value.
    public var range: Range<Int>

    public init(field: QueryField, word: String, value: String, range: Range<Int>) {
        self.field = field
        self.word = word
        self.value = value
        self.range = range
    }

    /// What to tell someone whose query found nothing: the words were searched for, and how to filter instead.
    public var suggestion: String {
        let filter = word.lowercased() + ":" + (value.contains(" ") ? "\"\(value)\"" : value)
        return
            "`\(QueryError.excerpt(word)) \(QueryError.excerpt(value))` was searched as two words; to filter, write \(filter)"
    }

    /// The error to raise when the value names a user or dialog of the archive (`described`, such as
    /// "user 42 (Alice Martin)").
    public func error(naming described: String) -> QueryError {
        let filter = word.lowercased() + ":" + (value.contains(" ") ? "\"\(value)\"" : value)
        return QueryError(
            position: range.lowerBound, length: range.count,
            message: "`\(QueryError.excerpt(word)) \(QueryError.excerpt(value))` would search for two words, but "
                + "\(described) exists",
            hint: "write \(filter) to filter by it; to search for the words, put them in quotes: "
                + "\"\(QueryError.excerpt(word)) \(QueryError.excerpt(value))\"")
    }
}
