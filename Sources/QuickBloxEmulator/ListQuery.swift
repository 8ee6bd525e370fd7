import QuickBlox

/// The paging, sorting and filter parameters of a list request.
struct ListQuery: Sendable {
    var filters: FilterSet
    /// The field to sort by and whether ascending; `nil` for the endpoint's default order.
    var sort: (field: String, ascending: Bool)?
    var skip: Int
    /// Already clamped to the emulator's maximum.
    var limit: Int
    var count: Bool

    /// Parameters that steer a list rather than filter it.
    static let reserved: Set<String> = [
        "skip", "limit", "sort_asc", "sort_desc", "count", "mark_as_read", "token", "chat_dialog_id", "_",
        "include_deleted",
    ]

    init(_ pairs: [(String, String)], maxLimit: Int, kind: (String) -> FieldKind) throws(EmulatorError) {
        var filters: [Filter] = []
        var skip = 0
        var limit = 100
        var count = false
        var sort: (String, Bool)?
        for (key, value) in pairs {
            switch key {
            case "skip":
                guard let number = Int(value), number >= 0 else {
                    throw .badRequest("skip must be a non-negative integer")
                }
                skip = number
            case "limit":
                guard let number = Int(value) else { throw .badRequest("limit must be an integer") }
                limit = number
            case "count": count = value == "1" || value == "true"
            case "sort_asc": sort = (value, true)
            case "sort_desc": sort = (value, false)
            case _ where Self.reserved.contains(key): break
            default: filters.append(Filter(key: key, value: value))
            }
        }
        self.filters = try FilterSet(filters, kind: kind)
        self.sort = sort
        self.skip = skip
        self.limit = min(max(1, limit), maxLimit)
        self.count = count
    }
}

/// A total order on field values for `sort_asc`/`sort_desc`: missing first, numbers, then text.
enum SortKey: Comparable {
    case missing
    case number(Int)
    case text(String)

    init(_ value: FieldValue) {
        switch value {
        case .missing: self = .missing
        case .int(let number): self = .number(number)
        case .ints(let numbers): self = numbers.first.map(SortKey.number) ?? .missing
        case .string(let text): self = .text(text)
        case .strings(let texts): self = texts.first.map(SortKey.text) ?? .missing
        }
    }
}
