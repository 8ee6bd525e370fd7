/// A comparison of the language, with the QuickBlox filter operator it mirrors in ``restName``.
///
/// The raw value is the spelling in the language's own form (`field op value`); QuickBlox's REST
/// spelling (`field[lt]=value`) is ``restName``.
public enum QueryOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// Case-insensitive substring.
    case contains = "ctn"
    case `in` = "in"
    case notIn = "nin"
    /// Every listed value is an element of the (array) field.
    case all = "all"

    /// QuickBlox's name in `field[op]=value` (empty for plain equality, `field=value`).
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

    /// Whether the operator takes a list of values (a date field's `in` still takes one period).
    public var takesList: Bool { self == .in || self == .notIn || self == .all }
}
