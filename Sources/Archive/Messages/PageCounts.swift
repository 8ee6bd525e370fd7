/// What one page write did to the messages it carried.
public struct PageCounts: Sendable, Hashable {
    /// Messages archived for the first time.
    public var new: Int
    /// Messages whose content (text, attachments, custom parameters) changed: one revision each.
    public var edited: Int
    /// Messages already archived with the same content. Read/delivered marking and `updated_at`
    /// bumps land here: those columns and `raw` are refreshed, but no revision is made.
    public var unchanged: Int

    public init(new: Int = 0, edited: Int = 0, unchanged: Int = 0) {
        self.new = new
        self.edited = edited
        self.unchanged = unchanged
    }
}
