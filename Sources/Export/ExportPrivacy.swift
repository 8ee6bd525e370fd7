import Archive
import QuickBlox

/// What an export does to records before it writes them: ``Redaction`` of every string, and for a
/// subject-access export (`--subject`) every person but the subject pseudonymised.
///
/// Pseudonyms are per export: the people other than the subject become `participant-1`, `participant-2`, …
/// in the order the export first meets them (so the same archive and options give the same bundle), with
/// the negative ids −1, −2, … wherever their user id stood (QuickBlox ids are positive, so none is taken
/// for a real one, and records keep their types). Their profiles shrink to the pseudonym; names of private
/// dialogs (which QuickBlox apps set to the other person's name) and their photos are left out. A class
/// because the pseudonyms and the redaction counts grow as the export goes; one export uses it from one
/// task at a time.
final class ExportPrivacy {
    private let redactor: Redactor?
    private let redaction: Redaction
    /// The subject of a subject-access export; `nil` for any other export.
    let subject: Int?
    private var pseudonyms: [Int: Int] = [:]

    /// The JSON keys whose values are QuickBlox user ids (or arrays of them), in records of the server
    /// (`../shared/reference/quickblox-rest.md`) and of the archive (`hidden_for`, `deletion_evidence`).
    static let userIDKeys: Set<String> = [
        "sender_id", "recipient_id", "user_id", "occupants_ids", "read_ids", "delivered_ids", "admin_ids",
        "admins_ids", "last_message_user_id", "absent_from", "user",
    ]

    init(redaction: Redaction, subject: Int?) {
        self.redaction = redaction
        self.redactor = redaction.isEmpty ? nil : Redactor(redaction)
        self.subject = subject
    }

    /// Nothing to change: records are written as stored.
    var isIdentity: Bool { redactor == nil && subject == nil }

    /// The pseudonymous id of a person other than the subject (the subject's own id is kept).
    func id(_ user: Int) -> Int {
        guard let subject, user != subject, user > 0 else { return user }
        if let known = pseudonyms[user] { return known }
        let next = -(pseudonyms.count + 1)
        pseudonyms[user] = next
        return next
    }

    func id(_ user: Int?) -> Int? { user.map { id($0) } }

    /// A message's or dialog's hides with each user's pseudonym, users ascending (as the archive keeps them).
    private func pseudonymised(_ hidden: [HiddenFor]) -> [HiddenFor] {
        hidden.map { HiddenFor(user: id($0.user), since: $0.since) }.sorted { $0.user < $1.user }
    }

    /// `participant-N` for a pseudonymous id.
    static func label(_ pseudonym: Int) -> String { "participant-\(-pseudonym)" }

    private func text(_ text: String?) -> String? { redactor?.redact(text) ?? text }

    private func json(_ json: String, redacting: Bool = true) -> String {
        guard !isIdentity else { return json }
        guard subject != nil, let value = try? JSONValue(parsing: json) else {
            return redacting ? redactor?.redactJSON(json) ?? json : json
        }
        var mapped = mapIDs(value)
        if redacting, let redactor { mapped = redactor.redact(mapped) }
        return mapped == value ? json : mapped.jsonString
    }

    private func json(_ json: String?) -> String? { json.map { self.json($0) } }

    /// User ids under ``userIDKeys`` replaced by pseudonyms, at any depth.
    private func mapIDs(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .int(let number) where key.map(Self.userIDKeys.contains) == true:
            return .int(id(number))
        case .string(let digits) where key.map(Self.userIDKeys.contains) == true:
            guard let number = Int(digits) else { return value }
            return .string(String(id(number)))
        case .array(let items):
            return .array(items.map { mapIDs($0, key: key) })
        case .object(let members):
            var out: [String: JSONValue] = [:]
            for (name, member) in members { out[name] = mapIDs(member, key: name) }
            return .object(out)
        default:
            return value
        }
    }

    /// Whether `redact(_:)` of a text can change a text (`--redact` rules were given).
    var redactsText: Bool { redactor != nil }

    /// A text of the export's own making (a transcript's lines), redacted.
    func redact(_ text: String) -> String { redactor?.redact(text) ?? text }

    /// A JSON value of the export's own making (`attachment_files`), redacted.
    func redact(_ value: JSONValue) -> JSONValue { redactor?.redact(value) ?? value }

    /// A message as the export writes it; `redacting: false` only pseudonymises (for a transcript, whose
    /// lines are redacted as a whole afterwards, so that attachments still find their files).
    func hit(_ hit: SearchHit, redacting: Bool = true) -> SearchHit {
        guard !isIdentity else { return hit }
        let text = { (value: String?) in redacting ? self.text(value) : value }
        let json = { (value: String) in self.json(value, redacting: redacting) }
        var hit = hit
        var message = hit.message
        message.text = text(message.text)
        message.attachmentsJSON = json(message.attachmentsJSON)
        message.customJSON = json(message.customJSON)
        message.raw = json(message.raw)
        message.deletionEvidence = message.deletionEvidence.map(json)
        hit.dialogName = text(hit.dialogName)
        hit.senderLogin = text(hit.senderLogin)
        hit.senderName = text(hit.senderName)
        hit.recipientLogin = text(hit.recipientLogin)
        hit.recipientName = text(hit.recipientName)
        if subject != nil {
            message.senderID = id(message.senderID)
            message.recipientID = message.recipientID == 0 ? 0 : id(message.recipientID)
            message.hiddenFor = pseudonymised(message.hiddenFor)
            if let sender = message.senderID, sender < 0 {
                hit.senderLogin = Self.label(sender)
                hit.senderName = Self.label(sender)
            }
            if let recipient = message.recipientID, recipient < 0 {
                hit.recipientLogin = Self.label(recipient)
                hit.recipientName = Self.label(recipient)
            }
            if hit.dialogType == 3 { hit.dialogName = nil }
        }
        hit.message = message
        return hit
    }

    /// An earlier version of a message.
    func revision(_ revision: MessageRevision) -> MessageRevision {
        guard !isIdentity else { return revision }
        var revision = revision
        revision.text = text(revision.text)
        revision.attachmentsJSON = json(revision.attachmentsJSON)
        revision.customJSON = json(revision.customJSON)
        revision.raw = json(revision.raw)
        return revision
    }

    /// A dialog record: private dialogs lose their name and photo in a subject-access export.
    func dialog(_ dialog: ArchivedDialog) -> ArchivedDialog {
        guard !isIdentity else { return dialog }
        var dialog = dialog
        dialog.name = text(dialog.name)
        dialog.photo = text(dialog.photo)
        dialog.dataJSON = json(dialog.dataJSON)
        dialog.occupantIDsJSON = json(dialog.occupantIDsJSON)
        dialog.adminIDsJSON = json(dialog.adminIDsJSON)
        dialog.raw = json(dialog.raw)
        dialog.deletionEvidence = json(dialog.deletionEvidence)
        if subject != nil {
            dialog.userID = id(dialog.userID)
            dialog.hiddenFor = pseudonymised(dialog.hiddenFor)
            // The archive stores occupant and admin ids as bare arrays: no key says they are user ids.
            dialog.occupantIDsJSON = mapIDArray(dialog.occupantIDsJSON)
            dialog.adminIDsJSON = dialog.adminIDsJSON.map(mapIDArray)
            if dialog.type == 3 {
                dialog.name = nil
                dialog.photo = nil
                if case .object(var raw)? = try? JSONValue(parsing: dialog.raw) {
                    raw["name"] = .null
                    raw["photo"] = .null
                    dialog.raw = JSONValue.object(raw).jsonString
                }
            }
        }
        return dialog
    }

    private func mapIDArray(_ json: String) -> String {
        guard let value = try? JSONValue(parsing: json), case .array = value else { return json }
        return mapIDs(value, key: "occupants_ids").jsonString
    }

    /// A period of membership.
    func membership(_ period: MembershipPeriod) -> MembershipPeriod {
        var period = period
        period.userID = id(period.userID)
        return period
    }

    /// A user's profile; in a subject-access export, everyone but the subject is only their pseudonym.
    func user(_ user: ArchivedUser) -> ArchivedUser {
        guard !isIdentity else { return user }
        if let subject, user.id != subject {
            let pseudonym = id(user.id)
            return ArchivedUser(
                id: pseudonym, login: Self.label(pseudonym), email: nil, fullName: Self.label(pseudonym), phone: nil,
                createdAt: nil, updatedAt: nil, lastRequestAt: nil, customData: nil, userTags: nil, raw: "null",
                firstSeenAt: user.firstSeenAt, lastSeenAt: user.lastSeenAt)
        }
        var user = user
        user.login = text(user.login)
        user.email = text(user.email)
        user.fullName = text(user.fullName)
        user.phone = text(user.phone)
        user.customData = text(user.customData)
        user.userTags = text(user.userTags)
        user.raw = json(user.raw)
        return user
    }

    /// What the manifest says was changed, or `nil` when nothing was.
    func manifestEntry() -> JSONValue? {
        guard !isIdentity else { return nil }
        var entry: [String: JSONValue] = [:]
        if let redactor { entry["redacted"] = redactor.manifestEntry(redaction) }
        if let subject {
            entry["subject_access"] = .object([
                "subject": .int(subject),
                "pseudonymised": .int(pseudonyms.count),
                "rule": .string(
                    "everyone but the subject is participant-N with id -N (N in order of first appearance); "
                        + "their profiles are only that; private dialogs have no name or photo"),
            ])
        }
        return .object(entry)
    }
}
