import Archive
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Places a hold, with its audit entry, in one transaction; returns it. An erasure under way holds `holds`
    /// in `SHARE` mode (``lockForErasure(_:)``): the hold is placed when it commits, and seen by the next.
    public func addHold(kind: LegalHold.Kind, target: String, reason: String, at time: Int) async throws -> LegalHold {
        let target = SQLiteText.cut(target)
        let reason = SQLiteText.cut(reason)
        return try await transaction { connection in
            let rows = try await connection.query(
                """
                INSERT INTO holds (kind, target, reason, created_at)
                VALUES (\(kind.rawValue), \(target), \(reason), \(Int64(time)))
                RETURNING id
                """, logger: Self.silent)
            var id: Int64?
            for try await value in rows.decode(Int64.self) { id = value }
            guard let id else { throw PostgresWriterError.noRowReturned }
            try await Self.appendAudit(
                action: "hold",
                detail: [
                    "hold": .int(Int(id)), "kind": .string(kind.rawValue), "target": .string(target),
                    "reason": .string(reason),
                ], at: time, connection: connection)
            return LegalHold(id: id, kind: kind, target: target, reason: reason, createdAt: time)
        }
    }

    /// Releases a hold, with its audit entry; `nil` when there is no such hold in force.
    public func releaseHold(id: Int64, reason: String, at time: Int) async throws -> LegalHold? {
        let reason = SQLiteText.cut(reason)
        return try await transaction { connection in
            let rows = try await connection.query(
                """
                UPDATE holds SET released_at = \(Int64(time)), release_reason = \(reason)
                WHERE id = \(id) AND released_at IS NULL
                RETURNING kind, target, reason, created_at
                """, logger: Self.silent)
            var released: LegalHold?
            for try await (kind, target, why, createdAt) in rows.decode((String, String, String, Int).self) {
                guard let kind = LegalHold.Kind(rawValue: kind) else { continue }
                released = LegalHold(
                    id: id, kind: kind, target: target, reason: why, createdAt: createdAt, releasedAt: time,
                    releaseReason: reason)
            }
            guard let released else { return nil }
            try await Self.appendAudit(
                action: "hold_release", detail: ["hold": .int(Int(id)), "reason": .string(reason)], at: time,
                connection: connection)
            return released
        }
    }
}
