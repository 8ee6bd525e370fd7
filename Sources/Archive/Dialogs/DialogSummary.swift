/// A dialog as a moderator browses it: its names and how much the archive holds of it.
public struct DialogSummary: Sendable, Hashable, Identifiable {
    /// A user who can see the dialog.
    public struct Occupant: Sendable, Hashable {
        public var id: Int
        /// Full name, else login, else `#id`.
        public var label: String

        public init(id: Int, label: String) {
            self.id = id
            self.label = label
        }
    }

    public var id: String
    /// 1 public group, 2 group, 3 private.
    public var type: Int
    /// The dialog's name as the server sent it; private dialogs usually have none.
    public var name: String?
    /// The occupants as last seen, with their display names (full name, else login, else `#id`).
    public var occupants: [Occupant]
    /// Archived messages, tombstoned ones included.
    public var messages: Int
    /// `date_sent` of the newest archived message.
    public var lastMessageAt: Int?
    /// When a reconcile found the dialog deleted for everyone (no user's list shows it).
    public var deletedAt: Int?
    /// Users whose own list no longer shows the dialog while others still have it.
    public var hiddenFor: [HiddenFor]

    public init(
        id: String, type: Int, name: String?, occupants: [Occupant], messages: Int,
        lastMessageAt: Int?, deletedAt: Int?, hiddenFor: [HiddenFor] = []
    ) {
        self.id = id
        self.type = type
        self.name = name
        self.occupants = occupants
        self.messages = messages
        self.lastMessageAt = lastMessageAt
        self.deletedAt = deletedAt
        self.hiddenFor = hiddenFor
    }

    /// A readable title: the name, or for an unnamed dialog its occupants (`alice ↔ bob`).
    public var title: String {
        if let name, !name.isEmpty { return name }
        if occupants.isEmpty { return id }
        return occupants.map(\.label).joined(separator: type == 3 ? " ↔ " : ", ")
    }
}
