import Foundation
import GRDB

extension SQLiteArchive {

    /// About how many messages the archive holds, in constant time (the largest rowid: rows are never
    /// deleted, so it is exact unless a write was rolled back).
    public func messageCountEstimate() async throws -> Int {
        try await reading { db in try Int.fetchOne(db, sql: "SELECT MAX(rowid) FROM messages") ?? 0 }
    }

    /// A value that changes whenever archived data may have: for caches of derived figures.
    ///
    /// Read in constant time (the largest rowids, the latest run and the latest erasure), unlike ``counts()``,
    /// which scans: messages and revisions are only ever appended, every other change a crawl makes (edits of
    /// read marks, tombstones, hides, users, dialogs) happens inside a crawl run, whose row changes when it
    /// starts and ends, an import appends messages, and an erasure or a retention purge, made outside any run,
    /// adds to the erasure register (a served dashboard once kept an erased person's figures and login until
    /// the next crawl).
    public func changeMarker() async throws -> String {
        try await reading { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT MAX(rowid) FROM messages), (SELECT MAX(rowid) FROM message_revisions),
                           (SELECT MAX(rowid) FROM users), (SELECT COUNT(*) FROM dialogs),
                           (SELECT id || ':' || status || ':' || COALESCE(ended_at, '') FROM runs
                            ORDER BY id DESC LIMIT 1),
                           (SELECT MAX(id) FROM erasures)
                    """)
            return (0..<6).map { index in row.flatMap { $0[index] as DatabaseValue? }?.description ?? "-" }
                .joined(separator: "/")
        }
    }

    /// The archive file and its WAL, in bytes.
    public func storageBytes() async throws -> Int? {
        [path, path + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }
            .reduce(0, +)
    }

}
