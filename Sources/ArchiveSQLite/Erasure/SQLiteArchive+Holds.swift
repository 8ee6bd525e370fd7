import Archive
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Migration `v9-legal-holds`: one row per hold, released holds kept (with when and why).
    static func createHolds(_ db: Database) throws {
        try db.create(table: "holds") { t in
            t.autoIncrementedPrimaryKey("id")
            t.column("kind", .text).notNull()
            t.column("target", .text).notNull()
            t.column("reason", .text).notNull()
            t.column("created_at", .integer).notNull()
            t.column("released_at", .integer)
            t.column("release_reason", .text)
        }
    }

    /// Places a hold, with its audit entry, in one transaction; returns it.
    public func addHold(kind: LegalHold.Kind, target: String, reason: String, at time: Int) async throws -> LegalHold {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO holds (kind, target, reason, created_at) VALUES (?, ?, ?, ?)",
                arguments: [kind.rawValue, target, reason, time])
            let id = db.lastInsertedRowID
            _ = try Self.appendAudit(
                db, action: "hold",
                detail: [
                    "hold": .int(Int(id)), "kind": .string(kind.rawValue), "target": .string(target),
                    "reason": .string(reason),
                ], at: time)
            return LegalHold(id: id, kind: kind, target: target, reason: reason, createdAt: time)
        }
    }

    /// Releases a hold, with its audit entry; `nil` when there is no such hold in force.
    public func releaseHold(id: Int64, reason: String, at time: Int) async throws -> LegalHold? {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE holds SET released_at = ?, release_reason = ? WHERE id = ? AND released_at IS NULL",
                arguments: [time, reason, id])
            guard db.changesCount == 1 else { return nil }
            _ = try Self.appendAudit(
                db, action: "hold_release", detail: ["hold": .int(Int(id)), "reason": .string(reason)], at: time)
            return try Self.holds(db).first { $0.id == id }
        }
    }

    private static func holds(_ db: Database) throws -> [LegalHold] {
        try Row.fetchAll(db, sql: "SELECT * FROM holds ORDER BY id").compactMap { row in
            guard let kind = LegalHold.Kind(rawValue: row["kind"]) else { return nil }
            return LegalHold(
                id: row["id"], kind: kind, target: row["target"], reason: row["reason"], createdAt: row["created_at"],
                releasedAt: row["released_at"], releaseReason: row["release_reason"])
        }
    }
}
