import Archive
import Foundation
import QueryLanguage

extension SQLArchiveReading {
    /// The sending date down to (newest first) or up to (oldest first) which a page of frequent words beside
    /// other conditions walks the date index, testing each message, before it fetches every hit instead; `nil`
    /// when the page should not walk.
    ///
    /// The planner fetched every hit of the words, tested the other conditions on each and sorted the survivors'
    /// wide rows: `invoice dialog_type:private` read 25,000 rows and sorted 17,000 of them for a page of 50 at a
    /// million messages (315 ms). Walking from the newest message finds the page after about `wanted ÷ share`
    /// messages, where `share` is the share of messages that match — unknown for the other conditions, so the
    /// walk is bounded: it covers the √(wanted × messages) newest (or oldest) messages, a date read from the
    /// date index alone; when that holds the page, every newer message was tested and the page is the same, and
    /// when it does not (the other conditions are rare), the caller fetches the hits as before, having spent
    /// about as much as they cost.
    ///
    /// Only where the shared reader steers such pages (``SQLDialect/steersWordsBesideConditions``), for words
    /// frequent enough that a walk of that length would meet them (a count stopped at that
    /// length), without a keyset cursor, and when no condition beside the words has an index the planner may
    /// prefer (sender, dialog, date, links, substrings).
    static func walkBoundary(
        _ query: Query, compiler: SearchCompiler, options: SearchOptions, on connection: any SQLConnection
    ) throws -> Int? {
        let dialect = connection.dialect
        guard dialect.steersWordsBesideConditions, options.sort != .rank, options.after == nil, options.limit > 0,
            compiler.fullTextKeys(query.root) == nil, !query.root.hasIndexedCondition,
            let keys = compiler.wordKeysBesideConditions(query.root)
        else { return nil }
        let length = walkBound(
            wanted: options.limit + options.offset, messages: Double(max(try messagesAbout(on: connection), 1)))
        let count = try connection.fetchInt("SELECT COUNT(*) FROM (\(keys) LIMIT \(length)) AS k") ?? 0
        guard count >= length else { return nil }
        let order = options.sort == .oldest ? "" : " DESC"
        return try connection.fetchInt(
            """
            SELECT m.date_sent FROM \(raw: dialect.messagesByDate) ORDER BY m.date_sent\(raw: order) \
            LIMIT 1 OFFSET \(length - 1)
            """)
    }
}

extension QueryExpression {
    /// Whether the expression has a condition, not negated, that an index of its own answers (the sender, the
    /// dialog, the sending date, links, substrings): the planner may read that index instead of walking dates.
    var hasIndexedCondition: Bool {
        switch self {
        case .text, .not: return false
        case .and(let children), .or(let children): return children.contains(where: \.hasIndexedCondition)
        case .predicate(let predicate):
            switch predicate.field {
            case .senderID, .dialog, .dateSent, .hasLink, .message: return true
            default: return false
            }
        }
    }
}
