import Archive
import QuickBlox

/// One JSON Lines record of a bundle, read back into the archive's types (the inverse of
/// `BundleRecords` and `MessageRecord`).
struct ImportRecord {
    struct Missing: Error {
        var reason: String
    }

    private let fields: [String: JSONValue]

    init?(_ value: JSONValue) {
        guard case .object(let fields) = value else { return nil }
        self.fields = fields
    }

    func dialog() throws(Missing) -> ArchivedDialog {
        ArchivedDialog(
            id: try string("id"), type: try int("type"), name: optionalString("name"), photo: optionalString("photo"),
            userID: optionalInt("user_id"), occupantIDsJSON: try json("occupant_ids"),
            adminIDsJSON: optionalJSON("admin_ids"), createdAt: try optionalTime("created_at"),
            updatedAt: try optionalTime("updated_at"), lastMessageDateSent: try optionalTime("last_message_date_sent"),
            xmppRoomJID: optionalString("xmpp_room_jid"), dataJSON: optionalJSON("data"), raw: try json("raw"),
            firstSeenAt: try time("first_seen_at"), lastSeenAt: try time("last_seen_at"),
            deletedAt: try optionalTime("deleted_at"))
    }

    func user() throws(Missing) -> ArchivedUser {
        ArchivedUser(
            id: try int("id"), login: optionalString("login"), email: optionalString("email"),
            fullName: optionalString("full_name"), phone: optionalString("phone"),
            createdAt: try optionalTime("created_at"), updatedAt: try optionalTime("updated_at"),
            lastRequestAt: try optionalTime("last_request_at"), customData: optionalString("custom_data"),
            userTags: optionalString("user_tags"), raw: try json("raw"), firstSeenAt: try time("first_seen_at"),
            lastSeenAt: try time("last_seen_at"))
    }

    func membership() throws(Missing) -> MembershipPeriod {
        MembershipPeriod(
            dialogID: try string("dialog_id"), userID: try int("user_id"),
            joinedObservedAt: try time("joined_observed_at"), leftObservedAt: try optionalTime("left_observed_at"))
    }

    func message() throws(Missing) -> ArchivedMessage {
        ArchivedMessage(
            id: try string("id"), dialogID: try string("dialog_id"), senderID: optionalInt("sender_id"),
            recipientID: optionalInt("recipient_id"), dateSent: try int("date_sent"),
            createdAt: try optionalTime("created_at"), updatedAt: try optionalTime("updated_at"),
            text: optionalString("text"), attachmentsJSON: try json("attachments"), customJSON: try json("custom"),
            raw: try json("raw"), firstSeenAt: try time("first_seen_at"), lastSeenAt: try time("last_seen_at"),
            edited: try int("edited"), deletedAt: try optionalTime("deleted_at"), hiddenFor: try hiddenFor(),
            deletionEvidence: optionalJSON("deletion_evidence"))
    }

    /// `hidden_for`: `[{"user":7,"since":"…"},…]`, absent when no one hid the message.
    private func hiddenFor() throws(Missing) -> [HiddenFor] {
        guard let value = fields["hidden_for"], value != .null else { return [] }
        guard let elements = value.arrayValue else { throw Missing(reason: "`hidden_for` is not a list") }
        var hidden: [HiddenFor] = []
        for element in elements {
            guard let user = element["user"]?.lenientInt, let text = element["since"]?.stringValue,
                let since = ISO8601.parse(text)
            else { throw Missing(reason: "`hidden_for` holds an entry without a user and an ISO 8601 `since`") }
            hidden.append(HiddenFor(user: user, since: since))
        }
        return hidden
    }

    func revision() throws(Missing) -> MessageRevision {
        MessageRevision(
            messageID: try string("message_id"), revision: try int("revision"), text: optionalString("text"),
            attachmentsJSON: try json("attachments"), customJSON: try json("custom"), raw: try json("raw"),
            updatedAt: try optionalTime("updated_at"), observedAt: try time("observed_at"),
            supersededAt: try time("superseded_at"))
    }

    private func string(_ key: String) throws(Missing) -> String {
        guard let value = optionalString(key) else { throw Missing(reason: "`\(key)` is missing") }
        return value
    }

    private func optionalString(_ key: String) -> String? { fields[key]?.stringValue }

    private func int(_ key: String) throws(Missing) -> Int {
        guard let value = optionalInt(key) else { throw Missing(reason: "`\(key)` is not a number") }
        return value
    }

    private func optionalInt(_ key: String) -> Int? {
        if case .int(let value)? = fields[key] { return value }
        return nil
    }

    private func time(_ key: String) throws(Missing) -> Int {
        guard let value = try optionalTime(key) else { throw Missing(reason: "`\(key)` is missing") }
        return value
    }

    private func optionalTime(_ key: String) throws(Missing) -> Int? {
        guard let value = fields[key], value != .null else { return nil }
        guard let text = value.stringValue, let seconds = ISO8601.parse(text) else {
            throw Missing(reason: "`\(key)` is not an ISO 8601 time")
        }
        return seconds
    }

    private func json(_ key: String) throws(Missing) -> String {
        guard let value = fields[key] else { throw Missing(reason: "`\(key)` is missing") }
        return value.jsonString
    }

    private func optionalJSON(_ key: String) -> String? {
        guard let value = fields[key], value != .null else { return nil }
        return value.jsonString
    }
}
