/// What an upsert of users or dialogs did.
public struct UpsertCounts: Sendable, Hashable {
    /// Records archived for the first time.
    public var new: Int
    /// Records whose server JSON differs from the archived one (the row was rewritten).
    public var changed: Int
    /// Records seen again exactly as archived (only `last_seen_at` moved).
    public var unchanged: Int

    public init(new: Int = 0, changed: Int = 0, unchanged: Int = 0) {
        self.new = new
        self.changed = changed
        self.unchanged = unchanged
    }
}
