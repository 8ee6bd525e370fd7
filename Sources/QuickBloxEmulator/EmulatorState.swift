import QuickBlox

/// Everything the emulator serves, as plain values; ``EmulatorStore`` owns the one mutable copy.
///
/// Messages are kept per dialog sorted by `(date_sent, _id)`, so a page asked for with a
/// `date_sent` cursor costs a binary search plus the page, not a scan.
struct EmulatorState: Sendable {
    struct MessageKey: Sendable {
        var dialog: String
        var dateSent: Int
    }

    struct StoredUser: Sendable {
        var user: User
        var password: String
    }

    struct StoredDialog: Sendable {
        /// The dialog without the per-request fields (`last_message*`, `unread_messages_count`).
        var dialog: Dialog
        /// Unread messages per occupant.
        var unread: [Int: Int] = [:]
        /// Users who removed the dialog from their own list (`DELETE` without `force`), and when.
        var hiddenFor: [Int: Int] = [:]
    }

    /// An earlier version of a message, replaced at `supersededAt`.
    struct Revision: Sendable {
        var message: Message
        var supersededAt: Int
    }

    /// A message or dialog that no longer exists, with its last content.
    struct Deletion: Sendable {
        var kind: String
        var id: String
        var record: JSONValue
        var deletedAt: Int
    }

    var users: [Int: StoredUser] = [:]
    var dialogs: [String: StoredDialog] = [:]
    var messages: [String: [Message]] = [:]
    /// Where each message lives: its dialog and its (unchanging) `date_sent`.
    var messageKeys: [String: MessageKey] = [:]
    var revisions: [Revision] = []
    var deletions: [Deletion] = []
    /// Messages removed for one user only (`DELETE` without `force`): message id → user → when.
    /// Kept beside the messages, not in them, so a message's JSON is the same for every viewer.
    var hiddenMessages: [String: [Int: Int]] = [:]
    /// The Content module's files, one per attachment that names a file.
    var blobs = BlobIndex()

    var sortedUserIDs: [Int] { users.keys.sorted() }

    /// Dialogs in creation order (`created_at`, then `_id`).
    var sortedDialogs: [Dialog] {
        dialogs.values.map(\.dialog).sorted { ($0.createdAt ?? 0, $0.id) < ($1.createdAt ?? 0, $1.id) }
    }

    /// Whether `user` has the dialog in its list: an occupant (or anyone, for a public dialog) who did not
    /// remove it for themselves.
    func canSee(_ stored: StoredDialog, user: Int) -> Bool {
        (stored.dialog.type == .publicGroup || stored.dialog.occupantIDs.contains(user))
            && stored.hiddenFor[user] == nil
    }

    /// Whether `user` did not remove the message for themselves.
    func isVisible(_ message: Message, to user: Int?) -> Bool {
        guard let user, let hidden = hiddenMessages[message.id] else { return true }
        return hidden[user] == nil
    }

    /// Who can still read a message (`nil`: the dialog is gone): those who see its dialog, less those who
    /// removed the message for themselves. Public dialogs are seen by every user.
    func readers(of message: Message) -> [Int]? {
        guard let stored = dialogs[message.chatDialogID] else { return nil }
        return readers(of: stored).filter { isVisible(message, to: $0) }
    }

    /// Who has the dialog in their list.
    func readers(of stored: StoredDialog) -> [Int] {
        let candidates = stored.dialog.type == .publicGroup ? sortedUserIDs : stored.dialog.occupantIDs
        return candidates.filter { stored.hiddenFor[$0] == nil }
    }

    /// The dialog as `user` sees it, with the last-message fields (of the newest message that user still
    /// sees) and that user's unread count.
    func presented(_ stored: StoredDialog, for user: Int?) -> Dialog {
        var dialog = stored.dialog
        let last = messages[dialog.id]?.last { isVisible($0, to: user) }
        dialog.lastMessage = last?.text
        dialog.lastMessageDateSent = last?.dateSent
        dialog.lastMessageID = last?.id
        dialog.lastMessageUserID = last?.senderID
        dialog.unreadMessagesCount = user.map { stored.unread[$0] ?? 0 } ?? 0
        return dialog
    }

    /// Index of the first message at or after `(dateSent, id)` in a dialog's sorted messages.
    static func lowerBound(_ list: [Message], dateSent: Int, id: String = "") -> Int {
        var low = 0
        var high = list.count
        while low < high {
            let mid = (low + high) / 2
            if (list[mid].dateSent, list[mid].id) < (dateSent, id) { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Where a message sits in its dialog's list.
    func location(ofMessage id: String) -> (dialog: String, index: Int)? {
        guard let key = messageKeys[id], let list = messages[key.dialog] else { return nil }
        let index = Self.lowerBound(list, dateSent: key.dateSent, id: id)
        guard index < list.count, list[index].id == id else { return nil }
        return (key.dialog, index)
    }

    /// Inserts a message in sort order and counts it unread for the other occupants.
    mutating func insert(_ message: Message) {
        var list = messages[message.chatDialogID] ?? []
        let index = Self.lowerBound(list, dateSent: message.dateSent, id: message.id)
        list.insert(message, at: index)
        messages[message.chatDialogID] = list
        messageKeys[message.id] = MessageKey(dialog: message.chatDialogID, dateSent: message.dateSent)
        if var stored = dialogs[message.chatDialogID] {
            for occupant in stored.dialog.occupantIDs
            where occupant != message.senderID && !message.readIDs.contains(occupant) {
                stored.unread[occupant, default: 0] += 1
            }
            dialogs[message.chatDialogID] = stored
        }
    }
}
