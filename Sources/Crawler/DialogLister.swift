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
        try await collect(filters + [("created_at[lte]", String(runStart))])
    }

    /// Dialogs updated after `since` (new messages, renames, occupant changes) and created by `runStart`.
    public func dialogs(updatedAfter since: Int, createdUpTo runStart: Int) async throws -> [Listed] {
        try await collect(filters + [("created_at[lte]", String(runStart)), ("updated_at[gt]", String(since))])
    }

    private func collect(_ parameters: [(String, String)]) async throws -> [Listed] {
        var listed: [Listed] = []
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
                    listed.append(Listed(dialog: dialog, raw: raw))
                }
                skip += page.items.count
                if page.items.count < max(1, page.limit) || page.items.isEmpty { break }
            }
            if listed.count >= total { break }
        }
        return listed.sorted { ($0.dialog.createdAt ?? 0, $0.dialog.id) < ($1.dialog.createdAt ?? 0, $1.dialog.id) }
    }
}
