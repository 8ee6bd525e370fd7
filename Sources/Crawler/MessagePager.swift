import Archive
import QuickBlox
import QuickBloxClient

/// Pages through one dialog's messages from a cursor to the end, without losing or repeating any.
///
/// The method the QuickBlox reference recommends: `sort_asc=date_sent`, a `date_sent[gte]` cursor,
/// de-duplication by `_id`, and — when more messages share one second than a page holds — paging
/// inside that second with `skip`. Messages created after the walk passes their second are picked up by
/// the next run, from the saved cursor.
///
/// It trusts neither the order nor the size of a page (docs/backups.md, "Pages that are not what was
/// asked for"): a page may come reordered, padded with a repeat, cut short or longer than the limit.
/// So the cursor moves to the newest `date_sent` among the page's distinct items (never "the last item"),
/// `skip` counts distinct ids known at that second, and each request inside a second overlaps the previous
/// page by one known item: a page at that second without any known item means the second shifted under
/// the walk (a deletion), and the second is read again from its start.
///
/// A page may also be cut short, and a short page is how the API says "the end". So every walk has an
/// expectation: the dialog's newest message (from its listing), or else the number of messages the filters
/// match (``expectedCount``, or `count=1` asked before the first page). A short page ends the walk once the
/// expectation is met. One that brings nothing new before it is met (the newest message was deleted, a
/// proxy cut the page) is checked with `count=1` from the cursor's second: the walk ends when the server
/// counts no more messages than the walk has reached there, and the page is asked again otherwise — up to
/// ``maxConfirms`` times, then ``PagesCutShort`` is thrown rather than a gap left unsaid.
public struct MessagePager: Sendable {
    /// One page of new messages, with the cursor to save together with them.
    public struct Batch: Sendable {
        /// Messages not seen before in this walk or at the starting cursor, ascending by `(date_sent, _id)`.
        public var messages: [Message]
        /// Those messages exactly as the server sent them.
        public var rawMessages: [JSONValue]
        /// The cursor once this batch is archived.
        public var cursor: CrawlCursor
        /// Items the server returned, duplicates included.
        public var received: Int
    }

    /// The newest message a walk should reach: the dialog's `last_message_date_sent` and `last_message_id`
    /// as its listing gave them.
    public struct Newest: Sendable, Equatable {
        public var dateSent: Int
        public var id: String?

        public init(dateSent: Int, id: String?) {
            self.dateSent = dateSent
            self.id = id
        }
    }

    public let client: QuickBloxClient
    public let dialogID: String
    public let onBehalfOf: Int?
    public var pageSize = 100
    /// Extra filter parameters (a targeted crawl); `date_sent`, `sort_*`, `skip` and `limit` are the pager's.
    public var filters: [(String, String)] = []
    /// When set, a short page ends the walk only once this message (or a newer second) was reached.
    public var newest: Newest?
    /// Without ``newest``: how many messages the filters match from the starting cursor's second on, when the
    /// caller already asked `count=1`; `nil` asks it before the first page.
    public var expectedCount: Int?
    /// How many times one walk may go back to the start of a second that shifted under it.
    static let maxRereads = 4
    /// How many times a short page that brought nothing new, while `count=1` says more remain, is asked again.
    static let maxConfirms = 12

    public init(client: QuickBloxClient, dialogID: String, onBehalfOf: Int? = nil) {
        self.client = client
        self.dialogID = dialogID
        self.onBehalfOf = onBehalfOf
    }

    /// Walks from `start` to the newest message, handing each page to `body` in order.
    ///
    /// The next request depends only on the pages received, so it is sent while `body` saves the page before
    /// it: a dialog's crawl waits for the server's latency or for the archive, not for both one after the
    /// other. `body` runs once per page, in order; if it throws, the walk stops there, the page fetched
    /// meanwhile is dropped and the error propagates, so nothing past a page that was not saved is handed on.
    public func walk(
        from start: CrawlCursor, _ body: (Batch) async throws -> Void
    ) async throws {
        // The cursor's `idsAtDateSent` are the distinct ids known at its second: from the start cursor, then
        // from every page.
        var cursor = start
        // How many of those the server orders first at that second, as this walk received them; a walk
        // never skips what an earlier run stored (it may have shifted since), so it starts at 0.
        var received = 0
        var rereads = 0
        var confirms = 0
        // Without the dialog's newest message the expectation is a count: met once this walk received that
        // many distinct messages in range (new ones, and ones known at the starting second received again).
        var expected = newest == nil ? expectedCount : nil
        if newest == nil, expected == nil {
            expected = try await count(from: start)
            if expected == 0 { return }
        }
        var total = 0
        var startSeen: Set<String> = []
        var page = try await fetch(at: cursor, received: received)
        while true {
            // One known item of overlap: the page must show it, or the second moved under the walk.
            let skip = max(0, received - 1)
            let limit = page.limit > 0 ? min(page.limit, pageSize) : pageSize

            // Distinct items, in (date_sent, _id) order whatever order they came in.
            var distinct: [String: (Message, JSONValue)] = [:]
            for (message, raw) in zip(page.items, page.rawItems) where distinct[message.id] == nil {
                distinct[message.id] = (message, raw)
            }
            let items = distinct.values.sorted { ($0.0.dateSent, $0.0.id) < ($1.0.dateSent, $1.0.id) }
            let inRange = items.filter { cursor.dateSent == nil || $0.0.dateSent >= cursor.dateSent! }
            let atCursor = inRange.filter { $0.0.dateSent == cursor.dateSent }
            let known = cursor.idsAtDateSent
            if skip > 0, !atCursor.isEmpty, !atCursor.contains(where: { known.contains($0.0.id) }),
                rereads < Self.maxRereads
            {
                // The overlap item is missing: messages before it at this second went away. Read the
                // second again from its start rather than skip past one.
                rereads += 1
                received = 0
                page = try await fetch(at: cursor, received: received)
                continue
            }
            let fresh = items.filter { !($0.0.dateSent == cursor.dateSent && known.contains($0.0.id)) }
            let freshInRange = fresh.filter { cursor.dateSent == nil || $0.0.dateSent >= cursor.dateSent! }
            total += freshInRange.count
            if cursor.dateSent != nil, cursor.dateSent == start.dateSent {
                startSeen.formUnion(atCursor.map(\.0.id).filter(start.idsAtDateSent.contains))
            }

            // The new cursor: the newest distinct second of the page, with every id known there.
            let next = cursor.advanced(over: fresh.map(\.0))
            received =
                next.dateSent == cursor.dateSent
                ? max(received, skip + atCursor.count) : inRange.filter { $0.0.dateSent == next.dateSent }.count
            cursor = next
            let batch = Batch(
                messages: fresh.map(\.0), rawMessages: fresh.map(\.1), cursor: cursor, received: page.items.count)
            // A full page always goes on (the skip or the cursor moved past it). A short page is the end once
            // the expectation is met; one that brings nothing new before that is checked with a count.
            if inRange.count < max(1, limit) {
                let met = newest != nil ? reached(cursor) : total + startSeen.count >= (expected ?? 0)
                if met {
                    try await body(batch)
                    return
                }
                if freshInRange.isEmpty {
                    let remaining = try await count(from: cursor)
                    if remaining <= received {
                        try await body(batch)
                        return
                    }
                    guard confirms < Self.maxConfirms else {
                        try await body(batch)
                        throw PagesCutShort(
                            dialogID: dialogID, from: cursor.dateSent, counted: remaining, received: received,
                            attempts: confirms + 1)
                    }
                    confirms += 1
                }
            }
            if !freshInRange.isEmpty { confirms = 0 }
            let (after, seen) = (cursor, received)
            async let following = fetch(at: after, received: seen)
            try await body(batch)
            page = try await following
        }
    }

    /// The page after `cursor`, `received` items of its second already seen (the last of them asked again).
    private func fetch(at cursor: CrawlCursor, received: Int) async throws -> Page<Message> {
        var parameters = filters + [("sort_asc", "date_sent"), ("limit", String(pageSize))]
        let skip = max(0, received - 1)
        if let since = cursor.dateSent {
            parameters.append(("date_sent[gte]", String(since)))
            if skip > 0 { parameters.append(("skip", String(skip))) }
        }
        return try await client.messages(dialogID: dialogID, parameters, onBehalfOf: onBehalfOf)
    }

    /// How many messages the filters match from `cursor`'s second on (`count=1`; never a faulty page).
    private func count(from cursor: CrawlCursor) async throws -> Int {
        var parameters = filters
        if let since = cursor.dateSent { parameters.append(("date_sent[gte]", String(since))) }
        return try await client.messageCount(dialogID: dialogID, parameters, onBehalfOf: onBehalfOf)
    }

    /// Whether the walk has reached ``newest``.
    private func reached(_ cursor: CrawlCursor) -> Bool {
        guard let newest else { return false }
        guard let at = cursor.dateSent else { return false }
        if at > newest.dateSent { return true }
        if at < newest.dateSent { return false }
        return newest.id.map { cursor.idsAtDateSent.contains($0) } ?? true
    }
}
