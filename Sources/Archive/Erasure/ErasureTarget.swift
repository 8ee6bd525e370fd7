/// Whose or what data `qbarchive erase` removes.
public enum ErasureTarget: Sendable, Hashable {
    /// One message.
    case message(id: String)
    /// A person: every message they sent, their revisions and files, and their profile (by id or login).
    case user(String)
    /// A dialog: every message in it, and its name, photo and custom data.
    case dialog(id: String)
    /// Retention: every message sent before the instant (unix seconds), except the ids kept (held).
    case sentBefore(Int, keeping: Set<String>)

    /// `message`, `user` or `dialog`, as the erasure register records it.
    public var kind: String {
        switch self {
        case .message: "message"
        case .user: "user"
        case .dialog: "dialog"
        case .sentBefore: "retention"
        }
    }
}
