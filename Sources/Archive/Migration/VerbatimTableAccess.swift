/// Reading and writing ``VerbatimTable`` rows as they are stored: what `qbarchive migrate` needs beyond the
/// reader and ``ArchiveWriter/importRecords(_:)`` to move an archive to another backend whole.
public protocol VerbatimTableAccess: Sendable {
    /// Up to `limit` rows of `table` (``VerbatimTable/columns``) in key order, after the key `after` (every row
    /// when `nil`).
    func verbatimRows(_ table: VerbatimTable, after: [TableCell]?, limit: Int) async throws -> [[TableCell]]
    /// How many rows ``verbatimRows(_:after:limit:)`` would read in all.
    func verbatimCount(_ table: VerbatimTable) async throws -> Int
    /// Writes rows read from another archive, in one transaction: ``VerbatimTable/Kind/insert`` keeps rows the
    /// archive has (same key); ``VerbatimTable/Kind/update`` rewrites the columns of rows it has. Returns how many
    /// rows changed.
    func writeVerbatim(_ table: VerbatimTable, rows: [[TableCell]]) async throws -> Int
}
