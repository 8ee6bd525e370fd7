import Foundation
import QuickBlox

/// Records an import found already held, whose restored copy is newer than the archive's: what the archive did not
/// take from it, counted by kind, with a few of their ids.
///
/// An import keeps every record the archive holds as it holds it — importing a bundle twice, or into the archive
/// it came from, changes nothing — so a bundle made after the archive's copy (an edit, a deletion for everyone, a
/// message or dialog hidden by one user, a renamed dialog or user) leaves the archive behind it. Nothing is lost
/// (the bundle is still there), but nothing may pass silently either: the import reports these, and importing the
/// bundle into a new archive gives its state. A difference the archive made itself is not one: a copy the archive
/// erased (``ArchivedMessage``'s erasure) is erased again after the import, and a copy older than the archive's
/// (seen by an earlier crawl) is what the archive moved on from.
public struct NotMerged: Sendable, Hashable {
    /// Messages whose restored copy has other content (text, attachments, custom parameters), seen later.
    public var editedMessages = 0
    /// Messages deleted for everyone in the restored copy, not in the archive's.
    public var deletedMessages = 0
    /// Messages the restored copy has hidden by a user the archive's copy does not.
    public var hiddenMessages = 0
    /// Dialogs deleted in the restored copy, not in the archive's.
    public var deletedDialogs = 0
    /// Dialogs the restored copy has hidden by a user the archive's copy does not.
    public var hiddenDialogs = 0
    /// Dialogs whose restored copy has another name or other occupants, seen later.
    public var changedDialogs = 0
    /// Users whose restored copy has another login, full name or e-mail, seen later.
    public var changedUsers = 0
    /// How many records (messages, dialogs, users) differ in any of these ways.
    public var records = 0
    /// The first few of them, as `message 6a…`, `dialog 5f…`, `user 12`.
    public var examples: [String] = []

    /// How many ``examples`` are kept.
    public static let exampleLimit = 5

    public init() {}

    /// Whether every record restored was new or already as the archive holds it.
    public var isEmpty: Bool { records == 0 }

    /// Adds another batch's records.
    public mutating func add(_ other: NotMerged) {
        editedMessages += other.editedMessages
        deletedMessages += other.deletedMessages
        hiddenMessages += other.hiddenMessages
        deletedDialogs += other.deletedDialogs
        hiddenDialogs += other.hiddenDialogs
        changedDialogs += other.changedDialogs
        changedUsers += other.changedUsers
        records += other.records
        examples = Array((examples + other.examples).prefix(Self.exampleLimit))
    }

    /// What each count says, in words, the counts that are not zero: `2 messages edited, 1 dialog deleted`.
    public var summary: String {
        let parts: [(Int, String, String)] = [
            (editedMessages, "message", "edited"), (deletedMessages, "message", "deleted for everyone"),
            (hiddenMessages, "message", "hidden by a user"), (deletedDialogs, "dialog", "deleted"),
            (hiddenDialogs, "dialog", "hidden by a user"),
            (changedDialogs, "dialog", "renamed or with other occupants"),
            (changedUsers, "user", "with another login, name or e-mail"),
        ]
        return parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)\($0.0 == 1 ? "" : "s") \($0.2)" }
            .joined(separator: ", ")
    }

    /// The counts as a JSON object (`--json`, the audit log), examples included.
    public var json: JSONValue {
        .object([
            "records": .int(records), "messages_edited": .int(editedMessages),
            "messages_deleted": .int(deletedMessages), "messages_hidden": .int(hiddenMessages),
            "dialogs_deleted": .int(deletedDialogs), "dialogs_hidden": .int(hiddenDialogs),
            "dialogs_changed": .int(changedDialogs), "users_changed": .int(changedUsers),
            "examples": .array(examples.map(JSONValue.string)),
        ])
    }

    /// Counts one record that differs, keeping its name among the first few.
    mutating func note(_ record: String) {
        records += 1
        if examples.count < Self.exampleLimit { examples.append(record) }
    }
}
