/// What an erasure removed (or, for a dry run, would remove): counts only, never content.
public struct ErasureReport: Sendable, Hashable {
    public var target: ErasureTarget
    /// The id the target resolved to (a login resolves to the user's id).
    public var targetID: String
    /// Messages whose text, attachments, custom fields and raw record were erased (their skeletons stay).
    public var messages = 0
    /// Earlier versions of those messages, deleted.
    public var revisions = 0
    /// Attachment files no remaining message or revision names, removed from the file store.
    public var files = 0
    /// User profiles replaced by a pseudonym.
    public var users = 0
    /// Dialogs whose name, photo and custom data were erased.
    public var dialogs = 0
    /// The pseudonym given to an erased user.
    public var pseudonym: String?
    /// Whether nothing was changed (`--dry-run`).
    public var dryRun = false
    /// The erasure register's id of this erasure (nil for a dry run).
    public var registerID: Int64?
    /// Messages erased (or that would be) per dialog id.
    public var perDialog: [String: Int] = [:]
    /// Messages the target selects that a hold kept (retention).
    public var kept = 0

    public init(target: ErasureTarget, targetID: String) {
        self.target = target
        self.targetID = targetID
    }
}
