import QuickBlox

/// A field a predicate can test, with its names and the operators that make sense for it.
///
/// Names are case-insensitive and each field has QuickBlox's name plus the aliases a moderator is
/// likely to type (`from`, `to`, `date`, …); ``name`` is the canonical one used in messages and docs.
public enum QueryField: Sendable, Hashable {
    case message, senderID, recipientID, dialog, dialogType, dialogName, dateSent, updatedAt
    case attachmentType, hasAttachment, readIDs, occupantsIDs, edited, deleted
    /// Hidden for some user (QuickBlox's "delete for me"), and for which users.
    case hidden, hiddenFor
    /// The message text holds a link (`has:link`): `http://`, `https://` or `www.`, in any case.
    case hasLink
    /// A custom message parameter (`custom.KEY`, KEY as typed).
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
        case .hidden: "hidden"
        case .hiddenFor: "hidden_for"
        case .hasLink: "has:link"
        case .custom(let key): "custom." + key
        }
    }

    /// Every name and alias, lower-cased, with its field.
    static let names: [String: QueryField] = [
        "message": .message, "text": .message,
        "sender_id": .senderID, "from": .senderID, "sender": .senderID,
        "recipient_id": .recipientID, "to": .recipientID, "recipient": .recipientID,
        "dialog": .dialog, "chat_dialog_id": .dialog, "dialog_id": .dialog, "in": .dialog,
        "dialog_type": .dialogType, "dialog_name": .dialogName,
        "date_sent": .dateSent, "date": .dateSent, "updated_at": .updatedAt,
        "attachments.type": .attachmentType, "attachment_type": .attachmentType,
        "has": .hasAttachment, "read_ids": .readIDs, "occupants_ids": .occupantsIDs,
        "edited": .edited, "deleted": .deleted, "hidden": .hidden, "hidden_for": .hiddenFor,
    ]

    /// The field named `name` (case-insensitive), `custom.KEY` included (KEY of `[A-Za-z0-9_.-]`).
    static func named(_ name: String) -> QueryField? {
        let lower = name.lowercased()
        if let field = names[lower] { return field }
        guard lower.hasPrefix("custom.") else { return nil }
        let key = String(name.dropFirst("custom.".count))
        guard !key.isEmpty, key.allSatisfy(isKeyCharacter) else { return nil }
        return .custom(key)
    }

    /// Whether `character` may appear in a field name or a custom parameter's key.
    static func isKeyCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "_.-".contains(character))
    }

    /// The operators the field accepts, in the order error hints list them.
    var operators: [FilterOperator] {
        let ordered: [FilterOperator] = [
            .equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual,
        ]
        switch self {
        case .message: return [.equal, .notEqual, .contains]
        case .senderID, .recipientID: return ordered + [.in, .notIn]
        case .hiddenFor: return [.equal, .notEqual, .in, .notIn]
        case .readIDs, .occupantsIDs: return ordered + [.in, .notIn, .all]
        case .dialog, .dialogType, .attachmentType: return [.equal, .notEqual, .in, .notIn]
        case .dialogName: return [.equal, .notEqual, .contains, .in, .notIn]
        case .dateSent, .updatedAt: return ordered + [.in]
        case .hasAttachment: return [.equal]
        case .edited, .deleted, .hidden, .hasLink: return [.equal, .notEqual]
        case .custom: return ordered + [.contains, .in, .notIn]
        }
    }

    /// Whether values are dates (one period, also after `in`).
    var isDate: Bool { self == .dateSent || self == .updatedAt }
}
