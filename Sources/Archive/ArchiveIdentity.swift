import Foundation

/// The identity of an archive, written once by ``SQLiteArchive/create(at:now:)``.
///
/// Exports and backups carry the id so that two copies of the same archive can be recognised.
public struct ArchiveIdentity: Sendable, Hashable {
    public var id: UUID
    /// Unix seconds.
    public var createdAt: Int

    public init(id: UUID, createdAt: Int) {
        self.id = id
        self.createdAt = createdAt
    }
}
