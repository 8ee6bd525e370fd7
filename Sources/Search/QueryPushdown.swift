import QueryLanguage
import QuickBlox

/// The part of a query that QuickBlox's `/chat/Message` filters can answer, and what is left.
///
/// Only the terms of a top-level `and` (or a lone predicate) can go to the server, and only in the
/// forms QuickBlox documents for messages (docs/query-language.md, `../shared/reference`):
/// `message` `=`/`!=`/`ctn`; `sender_id` by numeric id with every comparison and `in`/`nin`,
/// `recipient_id` with `=` and `in`; `date_sent` and `updated_at` as `gte`/`lt` bounds of a period; `attachments.type =`;
/// and `dialog =`/`in`, which chooses the dialogs (`chat_dialog_id` is required per request).
/// Words, `or`, `not`, logins and every other field stay local.
public struct QueryPushdown: Sendable, Hashable {
    /// The dialogs the query is limited to (empty: every dialog).
    public var dialogIDs: [String] = []
    /// Filter parameters for each `/chat/Message.json` request.
    public var filters: [Filter] = []
    /// The terms the server cannot evaluate, to filter locally (empty: the query is fully pushed down).
    public var residual: [QueryExpression] = []

    public init(_ query: Query) {
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
            case .less: filters.append(Filter(name, .lessThan, String(start)))
            case .lessOrEqual: filters.append(Filter(name, .lessThan, String(end)))
            case .greater: filters.append(Filter(name, .greaterThanOrEqual, String(end)))
            case .greaterOrEqual: filters.append(Filter(name, .greaterThanOrEqual, String(start)))
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
            guard op == .equal || op == .in, dialogIDs.isEmpty else { return false }
            dialogIDs = predicate.values.compactMap { if case .string(let id) = $0 { id } else { nil } }
            return true
        default:
            return false
        }
    }

    private static func filterOperator(_ op: QueryOperator) -> FilterOperator? {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .lessThan
        case .lessOrEqual: .lessThanOrEqual
        case .greater: .greaterThan
        case .greaterOrEqual: .greaterThanOrEqual
        case .in: .in
        case .notIn: .notIn
        case .contains, .all: nil
        }
    }
}
