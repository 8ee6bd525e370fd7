/// A parsed query: its source text and the expression it means.
public struct Query: Sendable, Hashable {
    public var source: String
    public var root: QueryExpression

    public init(source: String, root: QueryExpression) {
        self.source = source
        self.root = root
    }
}

/// A query's boolean structure over full-text terms and field predicates.
public indirect enum QueryExpression: Sendable, Hashable {
    /// Every child matches (at least two, flattened).
    case and([QueryExpression])
    /// At least one child matches (at least two, flattened).
    case or([QueryExpression])
    case not(QueryExpression)
    /// Full-text search on message text.
    case text(TextTerm)
    case predicate(QueryPredicate)
}

/// A bare word, a `prefix*` or a "quoted phrase": full-text search on message text.
public struct TextTerm: Sendable, Hashable {
    public enum Kind: Sendable, Hashable { case word, prefix, phrase }

    public var kind: Kind
    /// The word without its trailing `*`, or the phrase's inner text, exactly as typed.
    public var text: String
    /// Character offsets in the source.
    public var range: Range<Int>

    public init(kind: Kind, text: String, range: Range<Int>) {
        self.kind = kind
        self.text = text
        self.range = range
    }
}

/// `field op value(s)`: one filter on a message, its dialog or its sender.
public struct QueryPredicate: Sendable, Hashable {
    public var field: QueryField
    public var op: QueryOperator
    /// One value, or the list of `in`, `nin` and `all` (a date `in` has one period).
    public var values: [QueryValue]
    /// Character offsets of the whole predicate in the source.
    public var range: Range<Int>

    public init(field: QueryField, op: QueryOperator, values: [QueryValue], range: Range<Int>) {
        self.field = field
        self.op = op
        self.values = values
        self.range = range
    }
}

/// A typed value of a predicate.
///
/// A date is always a half-open period of unix seconds `[start, end)` — a year, month, day, or one
/// second (`end == start + 1`). Against a period, `=` and `in` mean inside it, `!=` outside,
/// `<` before its start, `<=` before its end, `>` at or after its end, `>=` at or after its start.
public enum QueryValue: Sendable, Hashable {
    case int(Int)
    case string(String)
    /// A sender or recipient given by login; the archive resolves it to an id.
    case login(String)
    case bool(Bool)
    case period(start: Int, end: Int)
}

/// A comparison of the language, with the QuickBlox filter operator it mirrors in ``restName``.
public enum QueryOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case contains = "ctn"
    case `in` = "in"
    case notIn = "nin"
    case all = "all"

    /// QuickBlox's name in `field[op]=value` (empty for plain equality).
    public var restName: String {
        switch self {
        case .equal: ""
        case .notEqual: "ne"
        case .less: "lt"
        case .lessOrEqual: "lte"
        case .greater: "gt"
        case .greaterOrEqual: "gte"
        case .contains: "ctn"
        case .in: "in"
        case .notIn: "nin"
        case .all: "all"
        }
    }

    /// Whether the operator takes a list of values.
    public var takesList: Bool { self == .in || self == .notIn || self == .all }
}
