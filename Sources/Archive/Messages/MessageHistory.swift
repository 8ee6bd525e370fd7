/// A message with every earlier version the archive has seen.
public struct MessageHistory: Sendable, Hashable {
    public var current: ArchivedMessage
    /// Oldest first.
    public var revisions: [MessageRevision]

    public init(current: ArchivedMessage, revisions: [MessageRevision]) {
        self.current = current
        self.revisions = revisions
    }
}
