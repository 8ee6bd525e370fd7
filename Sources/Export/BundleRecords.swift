import Archive
import QuickBlox
import Search

/// The JSON Lines records of a bundle's files other than `messages.jsonl`: sorted keys, archive JSON
/// columns copied as they are, times as ISO-8601 UTC. Documented in docs/exports.md.
public enum BundleRecords {
    static func dialog(_ dialog: ArchivedDialog, into out: inout [UInt8]) {
        var object = JSONObjectWriter(into: &out)
        optionalJSON(&object, "admin_ids", dialog.adminIDsJSON, &out)
        object.timestamp("created_at", dialog.createdAt, into: &out)
        optionalJSON(&object, "data", dialog.dataJSON, &out)
        object.timestamp("deleted_at", dialog.deletedAt, into: &out)
        if let evidence = dialog.deletionEvidence { object.json("deletion_evidence", evidence, into: &out) }
        object.timestamp("first_seen_at", dialog.firstSeenAt, into: &out)
        if !dialog.hiddenFor.isEmpty {
            object.value("hidden_for", MessageRecord.hiddenForJSON(dialog.hiddenFor), into: &out)
        }
        object.string("id", dialog.id, into: &out)
        object.timestamp("last_message_date_sent", dialog.lastMessageDateSent, into: &out)
        object.timestamp("last_seen_at", dialog.lastSeenAt, into: &out)
        object.string("name", dialog.name, into: &out)
        object.json("occupant_ids", dialog.occupantIDsJSON, into: &out)
        object.string("photo", dialog.photo, into: &out)
        object.json("raw", dialog.raw, into: &out)
        object.int("type", dialog.type, into: &out)
        object.timestamp("updated_at", dialog.updatedAt, into: &out)
        object.int("user_id", dialog.userID, into: &out)
        object.string("xmpp_room_jid", dialog.xmppRoomJID, into: &out)
        object.finish(into: &out)
    }

    static func user(_ user: ArchivedUser, into out: inout [UInt8]) {
        var object = JSONObjectWriter(into: &out)
        object.timestamp("created_at", user.createdAt, into: &out)
        object.string("custom_data", user.customData, into: &out)
        object.string("email", user.email, into: &out)
        object.timestamp("first_seen_at", user.firstSeenAt, into: &out)
        object.string("full_name", user.fullName, into: &out)
        object.int("id", user.id, into: &out)
        object.timestamp("last_request_at", user.lastRequestAt, into: &out)
        object.timestamp("last_seen_at", user.lastSeenAt, into: &out)
        object.string("login", user.login, into: &out)
        object.string("phone", user.phone, into: &out)
        object.json("raw", user.raw, into: &out)
        object.timestamp("updated_at", user.updatedAt, into: &out)
        object.string("user_tags", user.userTags, into: &out)
        object.finish(into: &out)
    }

    /// An earlier version of a message (`revisions.jsonl`; also the service's `/api/messages/{id}`).
    ///
    /// `files`, when given, is written as `attachment_files` (see ``FileReference``): bundles pass it.
    public static func revision(_ revision: MessageRevision, files: JSONValue? = nil, into out: inout [UInt8]) {
        var object = JSONObjectWriter(into: &out)
        if let files { object.value("attachment_files", files, into: &out) }
        object.json("attachments", revision.attachmentsJSON, into: &out)
        object.json("custom", revision.customJSON, into: &out)
        object.string("message_id", revision.messageID, into: &out)
        object.timestamp("observed_at", revision.observedAt, into: &out)
        object.json("raw", revision.raw, into: &out)
        object.int("revision", revision.revision, into: &out)
        object.timestamp("superseded_at", revision.supersededAt, into: &out)
        object.string("text", revision.text, into: &out)
        object.timestamp("updated_at", revision.updatedAt, into: &out)
        object.finish(into: &out)
    }

    static func membership(_ period: MembershipPeriod, into out: inout [UInt8]) {
        var object = JSONObjectWriter(into: &out)
        object.string("dialog_id", period.dialogID, into: &out)
        object.timestamp("joined_observed_at", period.joinedObservedAt, into: &out)
        object.timestamp("left_observed_at", period.leftObservedAt, into: &out)
        object.int("user_id", period.userID, into: &out)
        object.finish(into: &out)
    }

    /// A tombstone: `kind` is `message` or `dialog`.
    static func deletion(kind: String, id: String, dialogID: String?, deletedAt: Int, into out: inout [UInt8]) {
        var object = JSONObjectWriter(into: &out)
        object.timestamp("deleted_at", deletedAt, into: &out)
        if let dialogID { object.string("dialog_id", dialogID, into: &out) }
        object.string("id", id, into: &out)
        object.string("kind", kind, into: &out)
        object.finish(into: &out)
    }

    private static func optionalJSON(
        _ object: inout JSONObjectWriter, _ key: StaticString, _ json: String?, _ out: inout [UInt8]
    ) {
        if let json { object.json(key, json, into: &out) } else { object.string(key, nil, into: &out) }
    }
}
