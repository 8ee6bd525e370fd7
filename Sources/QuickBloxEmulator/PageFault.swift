import QuickBlox

/// A page of message items that is not what was asked for, as a faulty proxy, cache or server sends it.
///
/// Every item is a real message of the dialog, so a crawler that trusts neither the order nor the size of
/// a page loses nothing; one that takes the last item as the newest, or a short page as the end, does.
public enum PageFault: String, CaseIterable, Sendable {
    /// The items in reverse order.
    case reordered
    /// The page's first (oldest) item repeated at its end: `limit + 1` items, the last older than the rest.
    case padded
    /// Only the first half of the items.
    case short
    /// One item more than the limit allows (the next one in order).
    case overlong

    /// Applies the fault to `items`, the page asked for; `next` is the item after it, if any.
    func apply(to items: [Message], next: Message?) -> [Message] {
        switch self {
        case .reordered: return items.reversed()
        case .padded: return items.first.map { items + [$0] } ?? items
        case .short: return Array(items.prefix(items.count / 2))
        case .overlong: return next.map { items + [$0] } ?? items
        }
    }
}
