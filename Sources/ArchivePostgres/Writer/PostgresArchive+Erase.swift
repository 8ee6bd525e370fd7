import Archive
import Foundation
import PostgresNIO
import QuickBlox

extension PostgresArchive {
    /// Erases a message, a person or a dialog (``Archive/ErasureTarget``), in one transaction with its register
    /// entry and audit entry, then purges what PostgreSQL keeps of the old rows (``purgeErased()``): the same
    /// contract and the same stored values as a SQLite archive's erasure.
    ///
    /// Each message concerned keeps its skeleton — id, dialog, time, sender and recipient ids, `erased_at` —
    /// and loses its text, `words`, `text_folded`, attachments, custom fields and raw record (the skeleton's);
    /// its earlier versions are deleted. Attachment files that no remaining message or revision names leave
    /// `attachment_files` and the file store. A person's profile becomes the pseudonym SQLite gives (`erased-`
    /// and 12 hex digits of SHA-256 of the archive's id and the user's); a dialog loses its name (a
    /// pseudonym), photo and custom data. A dry run does the same in a transaction it rolls back.
    ///
    /// - Throws: ``Archive/ArchiveError/unknownTarget(_:)`` when the archive does not hold the target,
    ///   ``Archive/ArchiveError/holdPlacedMeanwhile(_:)`` when a hold newer than `holdsSeen` is in the register.
    public func erase(
        _ target: ErasureTarget, reason: String?, dryRun: Bool, holdsSeen: Int64?, at time: Int
    ) async throws -> ErasureReport {
        let outcome: ErasureOutcome
        do {
            outcome = try await transaction { connection in
                try await Self.lockForErasure(connection)
                if let holdsSeen,
                    let newest = try await connection.optionalInt64("SELECT MAX(id) FROM holds"), newest > holdsSeen
                {
                    throw ArchiveError.holdPlacedMeanwhile(newest)
                }
                let identity = try await Self.archiveID(connection)
                let outcome = try await Self.erase(
                    connection, target, reason: reason, at: time, identity: identity, register: !dryRun)
                // `transaction` commits what returns: a dry run leaves by an error that carries its counts.
                if dryRun { throw DryRunRollback(outcome: outcome) }
                return outcome
            }
        } catch let rollback as DryRunRollback {
            var report = rollback.outcome.report
            report.dryRun = true
            return report
        }
        removeFiles(outcome.unreferenced)
        try await purgeErased()
        return outcome.report
    }

    /// Takes, inside an erasure's transaction, the locks that make it safe on its own: one erasure at a time,
    /// never interleaved with a write of the same rows, and never past a hold placed meanwhile.
    ///
    /// `SHARE ROW EXCLUSIVE` on the tables an erasure rewrites conflicts with itself and with the `ROW
    /// EXCLUSIVE` lock every `INSERT`/`UPDATE`/`DELETE` takes, and not with plain reads: the erasure waits for
    /// page writes already under way, later ones wait for it, two erasures (or a re-application after an
    /// import) run one after the other, and searches go on meanwhile. `SHARE` on `holds` makes a hold being
    /// placed wait until the erasure commits, and one committed before is seen by the check that follows, as
    /// the SQLite archive's single write lock does. Taken in one fixed order by every erasure. The commands
    /// also hold the archive's crawl lock exclusively, so no crawl runs at all; these locks guard callers of
    /// the library that do not.
    static func lockForErasure(_ connection: PostgresConnection) async throws {
        try await connection.run("LOCK TABLE holds IN SHARE MODE")
        try await connection.run(
            """
            LOCK TABLE messages, message_revisions, users, dialogs, attachment_files, erasures
            IN SHARE ROW EXCLUSIVE MODE
            """)
    }

    /// Removes from the file store the files no row names any more, after the erasure committed.
    func removeFiles(_ digests: [String]) {
        for digest in digests where FileStore.isDigest(digest) { unlink(fileStore.path(for: digest)) }
    }

    static func archiveID(_ connection: PostgresConnection) async throws -> String {
        try await connection.strings("SELECT archive_id::text FROM archive_meta WHERE id = 1").first ?? ""
    }

    /// The erasure inside the caller's transaction: the report, and the SHA-256s of stored files that nothing
    /// names any more (removed from the store once the transaction commits). `register: false` (a dry run,
    /// rolled back) writes no register or audit entry: identity columns do not give back what a rolled-back
    /// insert drew, and the next erasure's numbers must stay those of a SQLite archive.
    static func erase(
        _ connection: PostgresConnection, _ target: ErasureTarget, reason: String?, at time: Int, identity: String,
        register: Bool = true
    ) async throws -> ErasureOutcome {
        let selection = try await ErasureSelection.resolve(target, connection: connection)
        var report = ErasureReport(target: target, targetID: selection.targetID)
        var keys: Set<String> = []
        var keeping: Set<String> = []
        if case .sentBefore(_, let kept) = target { keeping = kept }
        // In batches of 1000 along (date_sent, rowid), so that memory stays flat however much a retention run
        // erases; each batch is read before it is changed, and the next starts after the last one read.
        var after = (dateSent: Int64.min, rowID: Int64.min)
        while true {
            let batch = try await selection.batch(after: after, connection: connection)
            guard let last = batch.last else { break }
            after = (last.dateSent, last.rowID)
            let erasing = batch.filter { !keeping.contains($0.id) }
            report.kept += batch.count - erasing.count
            guard !erasing.isEmpty else { continue }
            for row in erasing {
                report.perDialog[row.dialogID, default: 0] += 1
                keys.formUnion(AttachmentKeys.of(row.attachments))
            }
            let ids = erasing.map(\.id)
            for attachments in try await connection.strings(
                "SELECT attachments FROM message_revisions WHERE message_id = ANY(\(ids)) AND attachments <> '[]'")
            {
                keys.formUnion(AttachmentKeys.of(attachments))
            }
            let rowIDs = erasing.map(\.rowID)
            let skeletons = erasing.map { row in
                ErasedMessage.skeleton(
                    id: row.id, dialogID: row.dialogID, dateSent: Int(row.dateSent),
                    senderID: row.senderID.map(Int.init),
                    recipientID: row.recipientID.map(Int.init))
            }
            // The words and folded text go with the text: the row leaves the word and trigram indexes.
            try await connection.run(
                """
                UPDATE messages m SET text = NULL, attachments = '[]', custom = '{}', raw = s.raw,
                    content_hash = \(Data()), erased_at = \(Int64(time)), text_folded = NULL
                FROM unnest(\(rowIDs)::bigint[], \(skeletons)::text[]) AS s(rowid, raw)
                WHERE m.rowid = s.rowid
                """)
            try await connection.run(
                """
                DELETE FROM message_words w USING messages m
                WHERE m.rowid = ANY(\(rowIDs)::bigint[]) AND w.date_key = m.date_key
                """)
            report.revisions += try await connection.changes(
                "DELETE FROM message_revisions WHERE message_id = ANY(\(ids)) RETURNING 1")
            report.messages += erasing.count
        }
        let digests = try await AttachmentKeys.forgetUnreferenced(keys, connection: connection)
        report.files = digests.count
        if case .user = target, let id = Int64(selection.targetID) {
            let name = try await pseudonym(of: "\(identity):user:\(id)", connection: connection)
            try await eraseProfile(id: id, pseudonym: name, at: time, connection: connection)
            report.users = 1
            report.pseudonym = name
            try await clearPrivateFaces(of: Int(id), connection: connection)
        }
        if case .dialog(let id) = target {
            let name =
                "erased dialog "
                + (try await pseudonym(of: "\(identity):dialog:\(id):user:0", connection: connection)).dropFirst(7)
            report.dialogs = try await eraseDialog(id: id, name: name, at: time, connection: connection)
        }
        try await forgetErasedLastMessages(connection)
        if register {
            report.registerID = try await Self.register(
                kind: target.kind, id: selection.targetID, reason: reason, report: report, at: time,
                connection: connection)
        }
        return ErasureOutcome(report: report, unreferenced: digests)
    }
}

/// What an erasure's transaction hands back: its report and the stored files nothing names any more.
struct ErasureOutcome: Sendable {
    var report: ErasureReport
    var unreferenced: [String]
}

/// How a dry run leaves its transaction: by this error, so that it rolls back, carrying its counts.
private struct DryRunRollback: Error {
    let outcome: ErasureOutcome
}
