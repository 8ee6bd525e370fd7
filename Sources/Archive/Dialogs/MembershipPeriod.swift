/// A span during which a user was observed among a dialog's occupants.
///
/// Times are when the crawler noticed the change, not when it happened: QuickBlox keeps no
/// occupant history, so the archive can only bracket a join or leave between two crawls.
public struct MembershipPeriod: Sendable, Hashable {
    public var dialogID: String
    public var userID: Int
    /// The first crawl that saw the user among the occupants (unix seconds).
    public var joinedObservedAt: Int
    /// The first crawl that no longer saw the user; `nil` while the user is still an occupant.
    public var leftObservedAt: Int?

    public init(dialogID: String, userID: Int, joinedObservedAt: Int, leftObservedAt: Int?) {
        self.dialogID = dialogID
        self.userID = userID
        self.joinedObservedAt = joinedObservedAt
        self.leftObservedAt = leftObservedAt
    }
}
