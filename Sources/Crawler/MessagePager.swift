import Archive
import QuickBlox
import QuickBloxClient

/// Pages through one dialog's messages from a cursor to the end, without losing or repeating any.
///
/// The method the QuickBlox reference recommends: `sort_asc=date_sent`, a `date_sent[gte]` cursor,
/// de-duplication by `_id`, and — when more messages share one second than a page holds — paging
/// inside that second with `skip`. It advances by the items received, trusts the `limit` the server
/// echoes (it may clamp), and stops on a short page. Messages created after the walk passes their
/// second are picked up by the next run, from the saved cursor.
public struct MessagePager: Sendable {
    /// One page of new messages, with the cursor to save together with them.
    public struct Batch: Sendable {
        /// Messages not seen before in this walk or at the starting cursor, in page order.
        public var messages: [Message]
        /// Those messages exactly as the server sent them.
        public var rawMessages: [JSONValue]
        /// The cursor once this batch is archived.
        public var cursor: CrawlCursor
        /// Items the server returned, duplicates included.
        public var received: Int
    }

    public let client: QuickBloxClient
    public let dialogID: String
    public let onBehalfOf: Int?
    public var pageSize = 100
    /// Extra filter parameters (a targeted crawl); `date_sent`, `sort_*`, `skip` and `limit` are the pager's.
    public var filters: [(String, String)] = []

    public init(client: QuickBloxClient, dialogID: String, onBehalfOf: Int? = nil) {
        self.client = client
        self.dialogID = dialogID
        self.onBehalfOf = onBehalfOf
    }

    /// Walks from `start` to the newest message, handing each page to `body` before asking for the next.
    ///
    /// `body` runs once per page, in order; if it throws, the walk stops there and the error propagates,
    /// so a page is never fetched past one that was not saved.
    public func walk(
        from start: CrawlCursor, _ body: (Batch) async throws -> Void
    ) async throws {
        var cursor = start
        // Items already returned at the cursor second in this walk: where `skip` resumes inside a burst.
        var receivedAtCursor = 0
        var seenAtCursor = start.idsAtDateSent
        while true {
            var parameters = filters + [("sort_asc", "date_sent"), ("limit", String(pageSize))]
            if let since = cursor.dateSent {
                parameters.append(("date_sent[gte]", String(since)))
                if receivedAtCursor > 0 { parameters.append(("skip", String(receivedAtCursor))) }
            }
            let page = try await client.messages(dialogID: dialogID, parameters, onBehalfOf: onBehalfOf)
            var fresh: [Message] = []
            var freshRaw: [JSONValue] = []
            for (message, raw) in zip(page.items, page.rawItems) {
                let seen = message.dateSent == cursor.dateSent && seenAtCursor.contains(message.id)
                if !seen && !fresh.contains(where: { $0.id == message.id }) {
                    fresh.append(message)
                    freshRaw.append(raw)
                }
            }
            let next = cursor.advanced(over: fresh)
            if let last = page.items.last {
                if last.dateSent == cursor.dateSent {
                    receivedAtCursor += page.items.count
                } else {
                    receivedAtCursor = page.items.filter { $0.dateSent == last.dateSent }.count
                    seenAtCursor = []
                }
                seenAtCursor.formUnion(page.items.filter { $0.dateSent == last.dateSent }.map(\.id))
            }
            cursor = next
            try await body(Batch(messages: fresh, rawMessages: freshRaw, cursor: cursor, received: page.items.count))
            // A page shorter than the limit the server applied is the last one.
            if page.items.count < max(1, page.limit) || page.items.isEmpty { return }
        }
    }
}
