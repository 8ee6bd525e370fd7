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
            deletedAt: try optionalTime("deleted_at"), hiddenFor: try hiddenFor(),
            deletionEvidence: optionalJSON("deletion_evidence"))
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

    /// A message record with its derived columns: `raw` is taken as parsed with the line, and the columns derived
    /// from it (attachments, custom parameters, the record as text) are what the archive stores, as after a crawl.
    /// The record's own `attachments` and `custom` must be there, as before, but are not read: they are derived
    /// from `raw` on export too.
    func message() throws(Missing) -> ImportedMessage {
        let id = try string("id")
        let dialogID = try string("dialog_id")
        let senderID = optionalInt("sender_id")
        let recipientID = optionalInt("recipient_id")
        let dateSent = try int("date_sent")
        let createdAt = try optionalTime("created_at")
        let updatedAt = try optionalTime("updated_at")
        let text = optionalString("text")
        try present("attachments")
        try present("custom")
        guard let raw = fields["raw"] else { throw Missing(reason: "`raw` is missing") }
        let firstSeenAt = try time("first_seen_at")
        let lastSeenAt = try time("last_seen_at")
        let edited = try int("edited")
        let deletedAt = try optionalTime("deleted_at")
        let hiddenFor = try hiddenFor()
        let content: MessageContent
        do {
            content = try ImportedMessage.content(of: raw, id: id, dialogID: dialogID)
        } catch {
            throw Missing(reason: error.reason)
        }
        let archived = ArchivedMessage(
            id: id, dialogID: dialogID, senderID: senderID, recipientID: recipientID, dateSent: dateSent,
            createdAt: createdAt, updatedAt: updatedAt, text: text, attachmentsJSON: content.attachments,
            customJSON: content.custom, raw: content.raw, firstSeenAt: firstSeenAt, lastSeenAt: lastSeenAt,
            edited: edited, deletedAt: deletedAt, hiddenFor: hiddenFor,
            deletionEvidence: optionalJSON("deletion_evidence"))
        return ImportedMessage(archived: archived, content: content)
    }

    /// `hidden_for`: `[{"user":7,"since":"…"},…]`, absent when no one hid the message or dialog.
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

    private func present(_ key: String) throws(Missing) {
        guard fields[key] != nil else { throw Missing(reason: "`\(key)` is missing") }
    }

    private func optionalJSON(_ key: String) -> String? {
        guard let value = fields[key], value != .null else { return nil }
        return value.jsonString
    }
}
