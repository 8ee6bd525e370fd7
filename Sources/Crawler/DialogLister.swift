import QuickBlox
import QuickBloxClient

/// Lists the dialogs a user can see, in a window frozen at the run's start.
///
/// Dialog lists sorted by `updated_at` or `last_message_date_sent` reorder as traffic arrives, so
/// `skip` paging over them repeats and misses dialogs. This pages `sort_asc=created_at` with
/// `created_at[lte]=run start`, an order new traffic cannot change; dialogs created later belong
/// to the next run. A dialog deleted while paging shifts `skip` by one, so the walk is checked against
/// `total_entries` and repeated (de-duplicated by `_id`) until nothing is missing.
public struct DialogLister: Sendable {
    public let client: QuickBloxClient
    public let onBehalfOf: Int?
    public var pageSize = 100
    /// Extra filter parameters (a targeted crawl).
    public var filters: [(String, String)] = []

    public init(client: QuickBloxClient, onBehalfOf: Int? = nil) {
        self.client = client
        self.onBehalfOf = onBehalfOf
    }

    /// A dialog and the JSON the server sent for it.
    public struct Listed: Sendable {
        public var dialog: Dialog
        public var raw: JSONValue
    }

    /// Every dialog created at or before `runStart` (unix seconds), in creation order.
    public func dialogs(createdUpTo runStart: Int) async throws -> [Listed] {
        try await collect(filters + [("created_at[lte]", String(runStart))]) { Listed(dialog: $0, raw: $1) }
    }

    /// ``dialogs(createdUpTo:)`` as a crawl's merge keeps them: each dialog's id and JSON bytes, made page by
    /// page, so that a list of a thousand dialogs is never held parsed (``Crawl/Listing/Entry``).
    func entries(createdUpTo runStart: Int) async throws -> [Crawl.Listing.Entry] {
        try await collect(filters + [("created_at[lte]", String(runStart))]) { Crawl.Listing.Entry(id: $0.id, raw: $1) }
    }

    /// Dialogs updated after `since` (new messages, renames, occupant changes) and created by `runStart`.
    public func dialogs(updatedAfter since: Int, createdUpTo runStart: Int) async throws -> [Listed] {
        try await collect(filters + [("created_at[lte]", String(runStart)), ("updated_at[gt]", String(since))]) {
            Listed(dialog: $0, raw: $1)
        }
    }

    /// Every dialog the parameters select, each once, in creation order, as `keep` makes it of the dialog and
    /// its JSON.
    private func collect<Item>(
        _ parameters: [(String, String)], _ keep: (Dialog, JSONValue) -> Item
    ) async throws -> [Item] {
        var listed: [(createdAt: Int, id: String, item: Item)] = []
        var seen: Set<String> = []
        for _ in 0..<3 {
            var skip = 0
            var total = 0
            while true {
                let page = try await client.dialogs(
                    parameters + [("sort_asc", "created_at"), ("limit", String(pageSize)), ("skip", String(skip))],
                    onBehalfOf: onBehalfOf)
                total = page.totalEntries ?? total
                for (dialog, raw) in zip(page.items, page.rawItems) where seen.insert(dialog.id).inserted {
                    listed.append((dialog.createdAt ?? 0, dialog.id, keep(dialog, raw)))
                }
                skip += page.items.count
                if page.items.count < max(1, page.limit) || page.items.isEmpty { break }
            }
            if listed.count >= total { break }
        }
        return listed.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }.map(\.item)
    }
}
