/// A field a predicate can test, with its names and the operators that make sense for it.
public enum QueryField: Sendable, Hashable {
    case message, senderID, recipientID, dialog, dialogType, dialogName, dateSent, updatedAt
    case attachmentType, hasAttachment, readIDs, occupantsIDs, edited, deleted
    /// A custom message parameter (`custom.KEY`).
    case custom(String)

    /// The canonical name, as docs/query-language.md lists it.
    public var name: String {
        switch self {
        case .message: "message"
        case .senderID: "sender_id"
        case .recipientID: "recipient_id"
        case .dialog: "dialog"
        case .dialogType: "dialog_type"
        case .dialogName: "dialog_name"
        case .dateSent: "date_sent"
        case .updatedAt: "updated_at"
        case .attachmentType: "attachments.type"
        case .hasAttachment: "has"
        case .readIDs: "read_ids"
        case .occupantsIDs: "occupants_ids"
        case .edited: "edited"
        case .deleted: "deleted"
        case .custom(let key): "custom." + key
        }
    }

    /// Every name and alias, lower-cased, with its field.
    static let names: [String: QueryField] = [
        "message": .message, "text": .message,
        "sender_id": .senderID, "from": .senderID, "sender": .senderID,
        "recipient_id": .recipientID, "to": .recipientID, "recipient": .recipientID,
        "dialog": .dialog, "chat_dialog_id": .dialog, "dialog_id": .dialog,
        "dialog_type": .dialogType, "dialog_name": .dialogName,
        "date_sent": .dateSent, "date": .dateSent, "updated_at": .updatedAt,
        "attachments.type": .attachmentType, "attachment_type": .attachmentType,
        "has": .hasAttachment, "read_ids": .readIDs, "occupants_ids": .occupantsIDs,
        "edited": .edited, "deleted": .deleted,
    ]

    /// The field named `name` (case-insensitive), `custom.KEY` included.
    static func named(_ name: String) -> QueryField? {
        let lower = name.lowercased()
        if let field = names[lower] { return field }
        if lower.hasPrefix("custom."), name.count > 7 {
            let key = String(name.dropFirst(7))
            guard key.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) else {
                return nil
            }
            return .custom(key)
        }
        return nil
    }

    /// The operators the field accepts.
    var operators: [QueryOperator] {
        let ids: [QueryOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in, .notIn]
        switch self {
        case .message: return [.equal, .notEqual, .contains]
        case .senderID, .recipientID: return ids
        case .readIDs, .occupantsIDs: return ids + [.all]
        case .dialog, .dialogType, .attachmentType: return [.equal, .notEqual, .in, .notIn]
        case .dialogName: return [.equal, .notEqual, .contains, .in, .notIn]
        case .dateSent, .updatedAt: return [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual, .in]
        case .hasAttachment: return [.equal]
        case .edited, .deleted: return [.equal, .notEqual]
        case .custom: return ids + [.contains]
        }
    }

    /// Whether values are dates (one period, also after `in`).
    var isDate: Bool { self == .dateSent || self == .updatedAt }

    /// The closest field name within two edits of `name`, for "did you mean".
    static func suggestion(for name: String) -> String? {
        let lower = name.lowercased()
        var best: (name: String, distance: Int)?
        for candidate in names.keys.sorted() {
            let distance = editDistance(lower, candidate)
            if distance <= 2, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
