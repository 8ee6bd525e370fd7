/// A legal hold: data that erasure and retention must not touch until it is released.
public struct LegalHold: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Every message a person sent, and their profile.
        case user
        /// Every message of a dialog.
        case dialog
        /// Every message a query in the moderation language matches (as the archive holds them at each check).
        case query
    }

    public var id: Int64
    public var kind: Kind
    /// The user id, the dialog id, or the query text.
    public var target: String
    public var reason: String
    public var createdAt: Int
    public var releasedAt: Int?
    public var releaseReason: String?

    public init(
        id: Int64, kind: Kind, target: String, reason: String, createdAt: Int, releasedAt: Int? = nil,
        releaseReason: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.target = target
        self.reason = reason
        self.createdAt = createdAt
        self.releasedAt = releasedAt
        self.releaseReason = releaseReason
    }

    /// Whether the hold is in force.
    public var isActive: Bool { releasedAt == nil }

    /// The hold as a query of the moderation language: what it keeps.
    public var queryText: String {
        switch kind {
        case .user: "sender_id = \(target)"
        case .dialog: "dialog = \"\(target)\""
        case .query: target
        }
    }
}
