/// A restore in progress: stores batches of records, each batch all or nothing, and lets the archive group them
/// into as few transactions as suit it (see ``ArchiveWriter/importing(_:)``).
public protocol ImportSession: Sendable {
    /// Stores one batch, keeping what the archive has (as ``ArchiveWriter/importRecords(_:)`` does); returns how many
    /// of its records were new, and which held records its copies are newer than (``NotMerged``). A batch that fails is undone whole, with the batches the archive held with it in
    /// one transaction (those since its last commit); the batches committed before stay.
    func store(_ batch: ImportBatch) async throws -> ImportOutcome
}

/// Each batch in a transaction of its own: what a backend without grouped commits offers
/// (``ArchiveWriter/importing(_:)``'s default).
struct BatchByBatchImport: ImportSession {
    let archive: any ArchiveWriter

    func store(_ batch: ImportBatch) async throws -> ImportOutcome {
        try await archive.importRecords(batch)
    }
}
