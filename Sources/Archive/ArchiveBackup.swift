/// What ``ArchiveReader/backup(to:replace:)`` made: a checked, consistent copy of the archive's database.
public struct ArchiveBackup: Sendable, Hashable {
    /// Where the copy is.
    public var path: String
    /// Its size.
    public var bytes: Int
    /// Database pages copied.
    public var pages: Int
    /// Wall time of the copy and its check.
    public var seconds: Double

    public init(path: String, bytes: Int, pages: Int, seconds: Double) {
        self.path = path
        self.bytes = bytes
        self.pages = pages
        self.seconds = seconds
    }
}
