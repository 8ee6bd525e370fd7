import Archive
import PostgresNIO

extension PostgresArchive {
    /// What a PostgreSQL archive cannot do yet (issue 22), and the way round it.
    static func notYet(_ what: String) -> ArchiveError {
        .unsupported("\(what) is not yet available on a PostgreSQL archive (issue 22); use a SQLite archive")
    }

    /// Not yet: throws ``ArchiveError/unsupported(_:)``.
    public func erase(_ target: ErasureTarget, reason: String?, dryRun: Bool, holdsSeen: Int64?, at time: Int)
        async throws -> ErasureReport
    {
        throw Self.notYet("Erasure")
    }

    /// Nothing to finish while erasure is not available here: `false`, after checking that the register holds no
    /// erasure left unpurged (one would have come from a later qbarchive; that throws).
    @discardableResult
    public func purgeErased() async throws -> Bool {
        let pending =
            try await client.query(
                "SELECT COUNT(*) FROM erasures WHERE purged_at IS NULL", logger: Self.silent
            ).collect().first?.decode(Int64.self) ?? 0
        guard pending == 0 else { throw Self.notYet("Finishing an erasure") }
        return false
    }

    /// Not yet: throws ``ArchiveError/unsupported(_:)``.
    public func reapplyErasures(keeping: Set<String>, at time: Int) async throws -> Int {
        throw Self.notYet("Erasure")
    }

    /// Not yet: throws ``ArchiveError/unsupported(_:)``.
    public func addHold(kind: LegalHold.Kind, target: String, reason: String, at time: Int) async throws -> LegalHold {
        throw Self.notYet("A legal hold")
    }

    /// Not yet: throws ``ArchiveError/unsupported(_:)``.
    public func releaseHold(id: Int64, reason: String, at time: Int) async throws -> LegalHold? {
        throw Self.notYet("A legal hold")
    }
}
