import Foundation

/// One entry of the archive's append-only, hash-chained audit log.
public struct AuditEntry: Sendable, Hashable, Identifiable {
    public var id: Int64
    /// When (unix seconds).
    public var at: Int
    /// What: `export`, `import`, ...
    public var action: String
    /// The details as canonical JSON (query, output, hash, counts).
    public var detail: String
    public var previousHash: Data?
    public var hash: Data

    public init(id: Int64, at: Int, action: String, detail: String, previousHash: Data?, hash: Data) {
        self.id = id
        self.at = at
        self.action = action
        self.detail = detail
        self.previousHash = previousHash
        self.hash = hash
    }
}
