import QuickBlox

/// The value of one filterable field of a record, typed as the emulator compares it.
enum FieldValue: Sendable {
    case int(Int)
    case string(String)
    case ints([Int])
    case strings([String])
    case missing

    /// Reads the value of `field` from a message; unknown fields are custom parameters, as in MongoDB.
    static func of(_ message: Message, field: String) -> FieldValue {
        switch field {
        case "_id": return .string(message.id)
        case "chat_dialog_id": return .string(message.chatDialogID)
        case "message": return message.text.map(FieldValue.string) ?? .missing
        case "date_sent": return .int(message.dateSent)
        case "sender_id": return message.senderID.map(FieldValue.int) ?? .missing
        case "recipient_id": return message.recipientID.map(FieldValue.int) ?? .missing
        case "created_at": return message.createdAt.map(FieldValue.int) ?? .missing
        case "updated_at": return message.updatedAt.map(FieldValue.int) ?? .missing
        case "attachments.type": return .strings(message.attachments.compactMap(\.type))
        case "read_ids": return .ints(message.readIDs)
        case "delivered_ids": return .ints(message.deliveredIDs)
        default: return FieldValue(json: message.extra[field])
        }
    }

    /// Reads the value of `field` from a dialog; `data[key]` reaches into the custom data.
    static func of(_ dialog: Dialog, field: String) -> FieldValue {
        switch field {
        case "_id": return .string(dialog.id)
        case "type": return .int(dialog.type.rawValue)
        case "name": return dialog.name.map(FieldValue.string) ?? .missing
        case "user_id": return dialog.userID.map(FieldValue.int) ?? .missing
        case "occupants_ids": return .ints(dialog.occupantIDs)
        case "created_at": return dialog.createdAt.map(FieldValue.int) ?? .missing
        case "updated_at": return dialog.updatedAt.map(FieldValue.int) ?? .missing
        case "last_message": return dialog.lastMessage.map(FieldValue.string) ?? .missing
        case "last_message_date_sent": return dialog.lastMessageDateSent.map(FieldValue.int) ?? .missing
        case "last_message_user_id": return dialog.lastMessageUserID.map(FieldValue.int) ?? .missing
        default:
            if field.hasPrefix("data["), field.hasSuffix("]") {
                let key = String(field.dropFirst(5).dropLast())
                return FieldValue(json: dialog.data?[key])
            }
            return FieldValue(json: dialog.extra[field])
        }
    }

    init(json: JSONValue?) {
        switch json {
        case nil, .null?: self = .missing
        case .int(let value)?: self = .int(value)
        case .array(let elements)?:
            if elements.allSatisfy({ if case .int = $0 { true } else { false } }) {
                self = .ints(elements.compactMap(\.lenientInt))
            } else {
                self = .strings(elements.compactMap(\.lenientString))
            }
        case let value?: self = value.lenientString.map(FieldValue.string) ?? .missing
        }
    }
}

/// How a field's filter values are read from the query string.
enum FieldKind {
    case integer
    /// Unix seconds, or ISO-8601 text.
    case timestamp
    case text

    static func of(messageField field: String) -> FieldKind {
        switch field {
        case "date_sent", "sender_id", "recipient_id", "read_ids", "delivered_ids": .integer
        case "created_at", "updated_at": .timestamp
        default: .text
        }
    }

    static func of(dialogField field: String) -> FieldKind {
        switch field {
        case "type", "user_id", "occupants_ids", "last_message_date_sent", "last_message_user_id": .integer
        case "created_at", "updated_at": .timestamp
        default: .text
        }
    }
}
