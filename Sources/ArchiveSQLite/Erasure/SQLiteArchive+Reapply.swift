import Archive
import Foundation
import GRDB
import QuickBlox

extension SQLiteArchive {
    /// Erases again what the erasure register names, for records that came back since: an import of a bundle
    /// made before an erasure brings the person's messages (and earlier versions of messages kept as skeletons)
    /// back into an archive whose register says they are gone. Each register target with something to erase
    /// again gets a new erasure (register entry and audit entry, reason "re-applied: …"); retention entries
    /// skip `keeping` (the messages legal holds keep). Earlier versions of messages already erased are removed
    /// too. Then the bytes are purged as after any erasure.
    ///
    /// - Returns: how many messages were erased again.
    public func reapplyErasures(keeping: Set<String>, at time: Int) async throws -> Int {
        let store = fileStore
        let (count, unreferenced) = try await pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            var result = (0, [String]())
            try db.inTransaction(.immediate) {
                let identity = try String.fetchOne(db, sql: "SELECT archive_id FROM archive_meta WHERE id = 1") ?? ""
                let entries = try Row.fetchAll(
                    db, sql: "SELECT target_kind, target_id, MIN(id) AS first FROM erasures GROUP BY 1, 2 ORDER BY 3")
                for entry in entries {
                    let kind: String = entry["target_kind"]
                    let id: String = entry["target_id"]
                    let target: ErasureTarget
                    switch kind {
                    case "user": target = .user(id)
                    case "dialog": target = .dialog(id: id)
                    case "message": target = .message(id: id)
                    case "retention":
                        guard let instant = ISO8601.parse(id) else { continue }
                        target = .sentBefore(instant, keeping: keeping)
                    default: continue
                    }
                    guard try Self.hasUnerased(db, target) else { continue }
                    let (report, digests) = try Self.erase(
                        db, target, reason: "re-applied: records of an earlier erasure came back (import)", at: time,
                        identity: identity)
                    result.0 += report.messages
                    result.1 += digests
                }
                try db.execute(
                    sql: """
                        DELETE FROM message_revisions
                        WHERE EXISTS (SELECT 1 FROM messages m WHERE m.id = message_revisions.message_id
                            AND m.erased_at IS NOT NULL)
                        """)
                if db.changesCount > 0 {
                    try db.execute(
                        sql: """
                            INSERT INTO erasures (at, target_kind, target_id, reason, messages, revisions, files)
                            VALUES (?, 'revisions', 'erased messages', ?, 0, ?, 0)
                            """,
                        arguments: [time, "re-applied: earlier versions of erased messages came back", db.changesCount])
                }
                // An import also brings back the attachment rows of messages that stayed erased (their skeletons
                // were kept, so nothing above erases them again): rows no remaining message or version names go,
                // with their stored files, or a crawl with --attachments files would download them again.
                if !entries.isEmpty {
                    let keys = Set(try String.fetchAll(db, sql: "SELECT key FROM attachment_files"))
                    result.1 += try Self.forgetUnreferencedFiles(db, keys: keys)
                }
                try Self.forgetErasedLastMessages(db)
                return .commit
            }
            return result
        }
        for digest in unreferenced where FileStore.isDigest(digest) { unlink(store.path(for: digest)) }
        try await purgeErased()
        return count
    }
}
