import GRDB

extension SQLiteArchive {
    /// What SQLite finds wrong with the file: `PRAGMA integrity_check`, then FTS5's own check that both full-text
    /// indexes agree with the messages; an empty list when all is well.
    ///
    /// The FTS5 check is a command written as an insert, so it needs a handle open for writing.
    public func integrityProblems() async throws -> [String] {
        var problems = try await pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            .filter { $0 != "ok" }
        guard !isReadOnly else { return problems }
        for index in Self.fullTextIndexes {
            do {
                try await pool.write { db in
                    try db.execute(sql: "INSERT INTO \(index) (\(index), rank) VALUES ('integrity-check', 1)")
                }
            } catch let error as DatabaseError {
                problems.append("\(index): \(error.message ?? "\(error.resultCode)")")
            }
        }
        return problems
    }
}
