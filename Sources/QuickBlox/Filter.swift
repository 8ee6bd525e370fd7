/// A QuickBlox filter operator, written `field[op]=value` in a request.
public enum FilterOperator: String, Sendable, Hashable, CaseIterable, Codable {
    /// `field=value`: no brackets on the wire.
    case equal = ""
    case lessThan = "lt"
    case lessThanOrEqual = "lte"
    case greaterThan = "gt"
    case greaterThanOrEqual = "gte"
    case notEqual = "ne"
    /// One of a comma-separated list.
    case `in` = "in"
    /// None of a comma-separated list.
    case notIn = "nin"
    /// An array field containing every listed value (`occupants_ids[all]=1,2`).
    case all = "all"
    /// Value A or value B; several `[or]` filters are OR-ed together.
    case or = "or"
    /// Substring (case-insensitive in the emulator; see docs/emulator.md).
    case contains = "ctn"

    /// The operator as the moderation query language spells it (`field op value`): `=`, `!=`, `<`, `<=`,
    /// `>`, `>=`, `ctn`, `in`, `nin`, `all` (and `or`, which the language writes between terms instead).
    public var symbol: String {
        switch self {
        case .equal: "="
        case .notEqual: "!="
        case .lessThan: "<"
        case .lessThanOrEqual: "<="
        case .greaterThan: ">"
        case .greaterThanOrEqual: ">="
        case .contains: "ctn"
        case .in: "in"
        case .notIn: "nin"
        case .all: "all"
        case .or: "or"
        }
    }

    /// The operator the query language spells `symbol`.
    public init?(symbol: String) {
        guard let found = Self.queryOperators.first(where: { $0.symbol == symbol }) else { return nil }
        self = found
    }

    /// The operators a query may put between a field and its value, in the language's order.
    public static let queryOperators: [FilterOperator] = [
        .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .contains, .in, .notIn,
        .all,
    ]

    /// Whether the value is a comma-separated list.
    public var takesList: Bool {
        switch self {
        case .in, .notIn, .all, .or: true
        default: false
        }
    }
}

/// One filter parameter of a list request, such as `sender_id[in]=34,45` or `data[class_name]=Game`.
public struct Filter: Sendable, Hashable {
    /// The field, which may itself contain brackets (`data[category]`).
    public var field: String
    public var op: FilterOperator
    /// The value as sent: a single value, or a comma-separated list for list operators.
    public var value: String

    public init(_ field: String, _ op: FilterOperator, _ value: String) {
        self.field = field
        self.op = op
        self.value = value
    }

    /// A list filter: the values joined with commas.
    public init(_ field: String, _ op: FilterOperator, _ values: [String]) {
        self.init(field, op, values.joined(separator: ","))
    }

    /// The parameter name on the wire: `field` or `field[op]`.
    public var key: String { op == .equal ? field : "\(field)[\(op.rawValue)]" }

    /// The list elements, trimmed (`1556739654, 1556739987` is a documented example with a space).
    public var values: [String] {
        guard op.takesList else { return [value] }
        return value.split(separator: ",", omittingEmptySubsequences: true).map {
            String($0.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
        }
    }

    /// Reads a decoded parameter name and value; a trailing `[op]` names the operator when it is one.
    public init(key: String, value: String) {
        if key.hasSuffix("]"), let open = key.lastIndex(of: "[") {
            let name = key[key.index(after: open)..<key.index(before: key.endIndex)]
            if !name.isEmpty, let op = FilterOperator(rawValue: String(name)), open != key.startIndex {
                self.init(String(key[..<open]), op, value)
                return
            }
        }
        self.init(key, .equal, value)
    }

    /// `(key, value)` for a query string.
    public var queryItem: (String, String) { (key, value) }
}
