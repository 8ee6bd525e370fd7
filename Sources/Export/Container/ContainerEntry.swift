/// One entry of a container, as its header describes it.
///
/// The reader hands these out before the entry's data so a caller can decide, from the path and size,
/// whether and how to read it.
public struct ContainerEntry: Sendable, Hashable {
    /// The entry's path inside the container, e.g. "transcripts/abc.txt".
    public var path: String
    /// The data's size in bytes; nil when the container does not record it before the data.
    public var size: Int?
    /// Seconds since 1970 (UTC).
    public var modificationTime: Int
    /// False for directories, links and other special entries, which bundles never contain.
    public var isRegularFile: Bool

    public init(path: String, size: Int?, modificationTime: Int, isRegularFile: Bool) {
        self.path = path
        self.size = size
        self.modificationTime = modificationTime
        self.isRegularFile = isRegularFile
    }
}
