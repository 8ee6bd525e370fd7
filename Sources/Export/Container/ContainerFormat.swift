/// The container of an export bundle.
///
/// A bundle is one file that a compliance officer can hand on; the three containers cover the usual
/// tools: `tar.gz` everywhere, `tar.zst` when size and speed matter, and `zip` for desktop users.
public enum ContainerFormat: String, Sendable, Hashable, CaseIterable {
    case tarGz = "tar.gz"
    case tarZst = "tar.zst"
    case zip

    /// File name extension, e.g. "tar.gz".
    ///
    /// The raw value doubles as the extension so a bundle's name says how to open it.
    public var fileExtension: String { rawValue }
}
