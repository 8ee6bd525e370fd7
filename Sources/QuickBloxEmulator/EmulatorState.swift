import QuickBlox

/// Everything the emulator serves, as plain values; ``EmulatorStore`` owns the one mutable copy.
///
/// Messages are kept per dialog sorted by `(date_sent, _id)` (``MessageList``, compactly), so a page asked for
/// with a `date_sent` cursor costs a binary search plus the page, not a scan.
struct EmulatorState: Sendable {
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
        /// A dialog's: who had removed it from their own list before it was deleted for everyone, and when.
        var hiddenFor: [Int: Int] = [:]
    }

    var users: [Int: StoredUser] = [:]
    var dialogs: [String: StoredDialog] = [:] {
        didSet { readerIndex = nil }
    }
    /// Which dialogs each user may list, built by the first listing after ``dialogs`` changed (any change
    /// drops it).
    var readerIndex: DialogReaderIndex?
    var messages: [String: MessageList] = [:]
    var revisions: [Revision] = []
    var deletions: [Deletion] = []
    /// Messages removed for one user only (`DELETE` without `force`): message id → user → when.
    /// Kept beside the messages, not in them, so a message's JSON is the same for every viewer.
    var hiddenMessages: [String: [Int: Int]] = [:]
    /// The Content module's files, one per attachment that names a file.
    var blobs = BlobIndex()

    var sortedUserIDs: [Int] { users.keys.sorted() }

    /// How many messages exist (not counting deletions).
    var messageCount: Int { messages.values.reduce(0) { $0 + $1.count } }

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

    /// Where the message with this `_id` sits in its dialog's list.
    ///
    /// Found by the `date_sent` its ObjectId carries (every id the emulator makes starts with the time it
    /// stands for, ``ObjectIDGenerator``): a binary search in each dialog; an id that does not (a fixture's
    /// own) by a scan. No map from id to place is kept: at a million messages one took 80 MiB, and only
    /// writes by id (tests, seldom) look a message up.
    func location(ofMessage id: String) -> (dialog: String, index: Int)? {
        if let packed = PackedObjectID(hex: id) {
            let sent = Int(packed.high >> 32)
            for (dialogID, list) in messages {
                if let index = list.index(ofID: id, sentAt: sent) { return (dialogID, index) }
            }
        }
        for (dialogID, list) in messages {
            if let index = list.index(ofID: id) { return (dialogID, index) }
        }
        return nil
    }

    /// Inserts a message in sort order and counts it unread for the other occupants.
    mutating func insert(_ message: Message) {
        // Changed in place: a copy of the list would cost a copy of every message of the dialog.
        let dialogID = message.chatDialogID
        let index = messages[dialogID, default: MessageList(dialogID: dialogID)]
            .lowerBound(dateSent: message.dateSent, id: message.id)
        messages[dialogID, default: MessageList(dialogID: dialogID)].insert(message, at: index)
        if var stored = dialogs[message.chatDialogID] {
            for occupant in stored.dialog.occupantIDs
            where occupant != message.senderID && !message.readIDs.contains(occupant) {
                stored.unread[occupant, default: 0] += 1
            }
            dialogs[message.chatDialogID] = stored
        }
    }
}
