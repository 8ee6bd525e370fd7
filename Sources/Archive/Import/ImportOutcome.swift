/// What storing a restore's records did (``ImportSession/store(_:)``, ``ArchiveWriter/importRecords(_:)``): how many
/// records were new, and which records the archive held already where the restored copy says more than it.
public struct ImportOutcome: Sendable, Hashable {
    /// Records the archive did not have.
    public var inserted: Int
    /// Records the archive kept as it held them though the restored copy was newer (an import does not merge).
    public var notMerged: NotMerged

    public init(inserted: Int = 0, notMerged: NotMerged = NotMerged()) {
        self.inserted = inserted
        self.notMerged = notMerged
    }

    /// Adds another batch's outcome.
    public static func += (lhs: inout ImportOutcome, rhs: ImportOutcome) {
        lhs.inserted += rhs.inserted
        lhs.notMerged.add(rhs.notMerged)
    }
}
