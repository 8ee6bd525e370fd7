import Foundation
import QuickBlox

extension NotMerged {
    /// What the archive holds of a message a restore found already there: what `compare(_:with:)` reads.
    public struct HeldMessage: Sendable {
        public var contentHash: Data
        public var lastSeenAt: Int
        public var deletedAt: Int?
        public var erased: Bool
        /// The users `message_hides` lists for it.
        public var hiddenFor: Set<Int>

        public init(contentHash: Data, lastSeenAt: Int, deletedAt: Int?, erased: Bool, hiddenFor: Set<Int>) {
            self.contentHash = contentHash
            self.lastSeenAt = lastSeenAt
            self.deletedAt = deletedAt
            self.erased = erased
            self.hiddenFor = hiddenFor
        }
    }

    /// What the archive holds of a dialog a restore found already there.
    public struct HeldDialog: Sendable {
        public var name: String?
        public var occupantIDsJSON: String
        public var lastSeenAt: Int
        public var deletedAt: Int?
        public var erased: Bool
        /// The users `dialog_hides` lists for it.
        public var hiddenFor: Set<Int>

        public init(
            name: String?, occupantIDsJSON: String, lastSeenAt: Int, deletedAt: Int?, erased: Bool, hiddenFor: Set<Int>
        ) {
            self.name = name
            self.occupantIDsJSON = occupantIDsJSON
            self.lastSeenAt = lastSeenAt
            self.deletedAt = deletedAt
            self.erased = erased
            self.hiddenFor = hiddenFor
        }
    }

    /// What the archive holds of a user a restore found already there.
    public struct HeldUser: Sendable {
        public var login: String?
        public var fullName: String?
        public var email: String?
        public var lastSeenAt: Int
        public var erased: Bool

        public init(login: String?, fullName: String?, email: String?, lastSeenAt: Int, erased: Bool) {
            self.login = login
            self.fullName = fullName
            self.email = email
            self.lastSeenAt = lastSeenAt
            self.erased = erased
        }
    }

    /// Counts what a restored message says that the archive's copy does not: other content seen by a later crawl,
    /// a deletion for everyone, a user's hide (of a message not deleted for everyone in the archive).
    public mutating func compare(_ restored: ImportedMessage, with held: HeldMessage) {
        guard !held.erased else { return }
        let archived = restored.archived
        let edited = restored.content.contentHash != held.contentHash && archived.lastSeenAt > held.lastSeenAt
        let deleted = archived.deletedAt != nil && held.deletedAt == nil
        let hidden =
            held.deletedAt == nil && archived.deletedAt == nil
            && !Set(archived.hiddenFor.map(\.user)).isSubset(of: held.hiddenFor)
        if edited { editedMessages += 1 }
        if deleted { deletedMessages += 1 }
        if hidden { hiddenMessages += 1 }
        if edited || deleted || hidden { note("message \(archived.id)") }
    }

    /// Counts what a restored dialog says that the archive's copy does not: a deletion, a user's hide, another name
    /// or other occupants seen by a later crawl.
    public mutating func compare(_ restored: ArchivedDialog, with held: HeldDialog) {
        guard !held.erased else { return }
        let deleted = restored.deletedAt != nil && held.deletedAt == nil
        let hidden =
            held.deletedAt == nil && restored.deletedAt == nil
            && !Set(restored.hiddenFor.map(\.user)).isSubset(of: held.hiddenFor)
        let changed =
            restored.lastSeenAt > held.lastSeenAt
            && (restored.name != held.name
                || Self.occupants(restored.occupantIDsJSON) != Self.occupants(held.occupantIDsJSON))
        if deleted { deletedDialogs += 1 }
        if hidden { hiddenDialogs += 1 }
        if changed { changedDialogs += 1 }
        if deleted || hidden || changed { note("dialog \(restored.id)") }
    }

    /// Counts a restored user whose login, full name or e-mail differs from the archive's copy, seen later.
    public mutating func compare(_ restored: ArchivedUser, with held: HeldUser) {
        guard !held.erased, restored.lastSeenAt > held.lastSeenAt,
            restored.login != held.login || restored.fullName != held.fullName || restored.email != held.email
        else { return }
        changedUsers += 1
        note("user \(restored.id)")
    }

    /// A JSON array of occupant ids as a set: the same occupants in another order are the same.
    private static func occupants(_ json: String) -> Set<Int> {
        guard let array = (try? JSONValue(parsing: Array(json.utf8)))?.arrayValue else { return [] }
        return Set(array.compactMap(\.lenientInt))
    }
}
