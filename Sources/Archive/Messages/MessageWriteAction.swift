import Foundation
import QuickBlox

/// What a page writer does with one message of a page: the decision every backend makes the same way, so
/// that a page stored on SQLite and on PostgreSQL leaves the same rows and the same ``PageCounts``.
///
/// The writer looks the message up by id (``StoredMessage``), asks ``decide(_:stored:erasedDialogs:erasedUsers:)``
/// and carries the action out with its own statements; ``PageCounts/count(_:)`` tallies it.
public enum MessageWriteAction: Sendable, Hashable {
    /// Archived and erased: what the server still has is never archived again; only `last_seen_at` moves.
    case touchErased
    /// New, from an erased dialog or sender: stored already erased (skeleton `raw`, no content).
    case insertErased
    /// New: inserted with its content, indexed, its files listed.
    case insert
    /// A copy older than the archived one (a smaller server `updated_at`): only `last_seen_at` moves.
    case touchOlder
    /// Text, attachments or custom parameters changed: the archived version becomes a revision, `edited` + 1.
    case revise
    /// Only what the content hash leaves out changed (read/delivered ids, `updated_at`…): the columns and `raw`
    /// are rewritten without a revision.
    case refresh
    /// Seen again exactly as archived: only `last_seen_at` moves (and a tombstone goes).
    case touch

    /// The action for `content`, given what the archive holds under its id (`nil`: nothing) and the erased
    /// dialogs and users (`qbarchive erase`).
    public static func decide(
        _ content: MessageContent, stored: StoredMessage?, erasedDialogs: Set<String>, erasedUsers: Set<Int>
    ) -> Self {
        let message = content.message
        guard let stored else {
            let erased =
                erasedDialogs.contains(message.chatDialogID) || message.senderID.map(erasedUsers.contains) == true
            return erased ? .insertErased : .insert
        }
        if stored.isErased { return .touchErased }
        if let incoming = message.updatedAt, let archived = stored.updatedAt, incoming < archived { return .touchOlder }
        if stored.contentHash != content.contentHash { return .revise }
        return stored.raw != content.raw ? .refresh : .touch
    }

    /// What the archive holds under the message's id after this action (for a later copy in the same page).
    public func stored(after content: MessageContent, before: StoredMessage?) -> StoredMessage? {
        switch self {
        case .insertErased:
            return StoredMessage(isErased: true, updatedAt: nil, contentHash: Data(), raw: "")
        case .insert, .revise, .refresh:
            return StoredMessage(
                isErased: false, updatedAt: content.message.updatedAt, contentHash: content.contentHash,
                raw: content.raw)
        case .touchErased, .touchOlder, .touch:
            return before
        }
    }
}

/// The columns of an archived message that ``MessageWriteAction/decide(_:stored:erasedDialogs:erasedUsers:)``
/// compares with an incoming copy.
public struct StoredMessage: Sendable, Hashable {
    /// `erased_at` is set.
    public var isErased: Bool
    /// The server's `updated_at` of the archived copy.
    public var updatedAt: Int?
    /// ``MessageContent/contentHash`` of the archived copy.
    public var contentHash: Data
    /// The archived copy's canonical JSON.
    public var raw: String

    public init(isErased: Bool, updatedAt: Int?, contentHash: Data, raw: String) {
        self.isErased = isErased
        self.updatedAt = updatedAt
        self.contentHash = contentHash
        self.raw = raw
    }
}

extension PageCounts {
    /// Tallies one message's action: an insert is new, a revision edited, everything else unchanged.
    public mutating func count(_ action: MessageWriteAction) {
        switch action {
        case .insert, .insertErased: new += 1
        case .revise: edited += 1
        case .touchErased, .touchOlder, .refresh, .touch: unchanged += 1
        }
    }
}
