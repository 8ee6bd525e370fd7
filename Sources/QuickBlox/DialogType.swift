/// The kind of a dialog: 1 public group, 2 group, 3 private (one-to-one).
public struct DialogType: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let publicGroup = DialogType(rawValue: 1)
    public static let group = DialogType(rawValue: 2)
    public static let `private` = DialogType(rawValue: 3)

    /// `public`, `group`, `private`, or the number for a type QuickBlox has not defined.
    public var name: String {
        switch rawValue {
        case 1: "public"
        case 2: "group"
        case 3: "private"
        default: String(rawValue)
        }
    }

    /// Reads `public`/`group`/`private` or `1`/`2`/`3`.
    public init?(name: String) {
        switch name.lowercased() {
        case "public", "1": self = .publicGroup
        case "group", "2": self = .group
        case "private", "3": self = .private
        default: return nil
        }
    }

    public var description: String { name }
}
