import QueryLanguage
import QuickBlox

/// The part of a query that QuickBlox's `/chat/Message` filters can answer, and what is left.
///
/// Only the terms of a top-level `and` (or a lone predicate) can go to the server, and only in the
/// forms QuickBlox documents for messages (docs/query-language.md, `../shared/reference`):
/// `message` `=`/`!=`/`ctn`; `sender_id` by numeric id with every comparison and `in`/`nin`,
/// `recipient_id` with `=` and `in`; `date_sent` and `updated_at` as `gte`/`lt` bounds of a period; `attachments.type =`;
/// and `dialog =`/`in`, which chooses the dialogs (`chat_dialog_id` is required per request).
/// Words, `or`, `not`, logins, dialog names and every other field stay local.
public struct QueryPushdown: Sendable, Hashable {
    /// The dialogs the query is limited to (empty: every dialog).
    public var dialogIDs: [String] = []
    /// Filter parameters for each `/chat/Message.json` request.
    public var filters: [Filter] = []
    /// The terms the server cannot evaluate, to filter locally (empty: the query is fully pushed down).
    public var residual: [QueryExpression] = []

    /// The query pushed down.
    public let query: Query

    public init(_ query: Query) {
        self.query = query
        let terms: [QueryExpression]
        if case .and(let children) = query.root { terms = children } else { terms = [query.root] }
        for term in terms {
            guard case .predicate(let predicate) = term, push(predicate) else {
                residual.append(term)
                continue
            }
        }
    }

    /// Whether everything the query asks can be answered by the server.
    public var isComplete: Bool { residual.isEmpty }

    /// The filters as a query string, as they would be sent.
    public var queryString: String {
        QueryString.encode(filters.map(\.queryItem))
    }

    private mutating func push(_ predicate: QueryPredicate) -> Bool {
        let op = predicate.op
        switch predicate.field {
        case .message:
            guard case .string(let text) = predicate.values.first else { return false }
            filters.append(Filter("message", op == .contains ? .contains : op == .notEqual ? .notEqual : .equal, text))
            return true
        case .senderID, .recipientID:
            // A group message's recipient is 0 on the server and absent in the archive: only `=` and `in`
            // (never true of 0) mean the same on both sides.
            if predicate.field == .recipientID, op != .equal, op != .in { return false }
            let ids = predicate.values.compactMap { if case .int(let id) = $0 { String(id) } else { nil } }
            guard ids.count == predicate.values.count, let filterOp = Self.filterOperator(op) else { return false }
            filters.append(Filter(predicate.field.name, filterOp, ids))
            return true
        case .dateSent, .updatedAt:
            guard case .period(let start, let end) = predicate.values.first else { return false }
            let name = predicate.field.name
            switch op {
            case .lessThan: filters.append(Filter(name, .lessThan, String(start)))
            case .lessThanOrEqual: filters.append(Filter(name, .lessThan, String(end)))
            case .greaterThan: filters.append(Filter(name, .greaterThanOrEqual, String(end)))
            case .greaterThanOrEqual: filters.append(Filter(name, .greaterThanOrEqual, String(start)))
            case .equal, .in:
                filters.append(Filter(name, .greaterThanOrEqual, String(start)))
                filters.append(Filter(name, .lessThan, String(end)))
            default: return false
            }
            return true
        case .attachmentType:
            guard op == .equal, case .string(let type) = predicate.values.first else { return false }
            filters.append(Filter("attachments.type", .equal, type))
            return true
        case .dialog:
            // Only dialog ids go to the server: a dialog named by its name (`in:general`) is the archive's to
            // resolve, so it stays local.
            let ids = predicate.values.compactMap {
                if case .string(let id) = $0, Self.isObjectID(id) { id } else { nil }
            }
            guard op == .equal || op == .in, dialogIDs.isEmpty, ids.count == predicate.values.count else {
                return false
            }
            dialogIDs = ids
            return true
        default:
            return false
        }
    }

    /// Whether `text` has the form of a QuickBlox object id: 24 hexadecimal digits.
    static func isObjectID(_ text: String) -> Bool {
        text.utf8.count == 24 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The operator as a REST filter: the same enum, except what QuickBlox cannot evaluate for messages.
    private static func filterOperator(_ op: FilterOperator) -> FilterOperator? {
        switch op {
        case .contains, .all, .or: nil
        default: op
        }
    }
}

extension QueryPushdown {
    /// What `search --explain` says of the pushdown: the REST request a targeted crawl could make and what
    /// it would leave to filter locally.
    public var explanation: [String] {
        var lines = ["QuickBlox REST (what a targeted crawl could ask the server):"]
        if !dialogIDs.isEmpty { lines.append("  dialogs: " + dialogIDs.joined(separator: ", ")) }
        lines.append("  GET /chat/Message.json?" + (filters.isEmpty ? "(no filter)" : queryString))
        let local = residual.map { query.text(of: $0) }
        lines.append("left to filter locally: " + (local.isEmpty ? "nothing" : local.joined(separator: " · ")))
        return lines
    }
}
