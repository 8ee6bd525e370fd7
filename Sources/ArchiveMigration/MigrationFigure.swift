/// One part's count and content hash in the source and the destination, as a migration's verification
/// prints them.
public struct MigrationFigure: Sendable, Hashable {
    /// A table (`users`, `messages`, `audit_log` …) or `files` (the file store).
    public var part: String
    public var sourceCount: Int
    public var destinationCount: Int
    /// SHA-256 (hex) of the part's content as read back (for `messages`: of the JSON Lines export with raw
    /// records, `qbarchive export --format jsonl --raw`).
    public var sourceHash: String
    public var destinationHash: String

    public init(part: String, sourceCount: Int, destinationCount: Int, sourceHash: String, destinationHash: String) {
        self.part = part
        self.sourceCount = sourceCount
        self.destinationCount = destinationCount
        self.sourceHash = sourceHash
        self.destinationHash = destinationHash
    }

    /// Whether both sides agree.
    public var matches: Bool { sourceCount == destinationCount && sourceHash == destinationHash }
}
