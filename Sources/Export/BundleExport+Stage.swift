import Archive
import Foundation
import QuickBlox
import Search

extension BundleExport {
    /// The staged files and the manifest fields learnt while writing them.
    struct Staged {
        var files: [BundleManifest.File]
        var body: [String: JSONValue]
        var messages: Int
        /// The stored files the messages and revisions reference: SHA-256 → size (bundled unless
        /// `--no-attachments`; read from the file store when the container is written, never staged).
        var attachments: [String: Int]
    }

    /// Streams every file of the bundle but the README and the attachments into `stage`, inside one read
    /// transaction so that the files agree with each other, and learns which stored files the messages
    /// and their earlier revisions reference.
    func stageFiles(
        archive: any ArchiveReader, stage: StagingDirectory, progress: @escaping @Sendable (Int) -> Void
    ) async throws -> Staged {
        let query = selection.query
        let attachments = attachments
        let redaction = redaction
        let subject = selection.subject?.id
        return try await archive.withSnapshot { snapshot in
            let privacy = ExportPrivacy(redaction: redaction, subject: subject)
            let identity = try await snapshot.identity()
            let messagesJSON = try stage.create("messages.jsonl")
            let messagesCSV = try stage.create("messages.csv")
            let deletions = try stage.create("deletions.jsonl")
            try messagesCSV.write(Array((ExportRecord.csvHeader + "\n").utf8))
            // Both message files are written on a thread of their own, as the loop hands their records over.
            let messageFiles = MessageFilesWriter(json: messagesJSON, csv: messagesCSV)
            defer { messageFiles.abandon() }
            var messageCount = 0
            var files: [BundleManifest.File] = []
            var transcript: StagedFile?
            var dialogIDs: [String] = []
            var userIDs = Set<Int>()
            var first: Int?
            var last: Int?
            var line: [UInt8] = []
            line.reserveCapacity(4096)
            var transcriptLine: [UInt8] = []
            transcriptLine.reserveCapacity(4096)
            let carriage: FileReference.Carriage = attachments ? .bundled : .leftOut
            var resolver = FileReferenceResolver(carriage: carriage)

            // Dialogs deleted for everyone, said in their transcripts' headings (a few thousand dialogs at most).
            var deletedDialogs: [String: Int] = [:]
            for try await dialogs in snapshot.dialogs(ids: nil) {
                for dialog in dialogs { if let deletedAt = dialog.deletedAt { deletedDialogs[dialog.id] = deletedAt } }
            }
            for try await batch in snapshot.messages(matching: query) {
                var records: [MessageFilesWriter.Record] = []
                records.reserveCapacity(batch.items.count)
                for (hit, keys) in zip(batch.items, batch.attachmentKeys) {
                    let message = hit.message
                    let references = resolver.resolve(keys: keys, files: batch.files)
                    let shown = privacy.hit(hit)
                    let spoken = privacy.hit(hit, redacting: false)
                    if transcript?.name != "transcripts/\(message.dialogID).txt" {
                        if let transcript { files.append(try transcript.finish(records: nil)) }
                        let next = try stage.create("transcripts/\(message.dialogID).txt")
                        try next.write(
                            Array(
                                privacy.redact(
                                    TranscriptWriter.heading(spoken, deletedAt: deletedDialogs[message.dialogID])
                                ).utf8))
                        transcript = next
                        dialogIDs.append(message.dialogID)
                    }
                    if privacy.redactsText {
                        let lines = TranscriptWriter.redactedLines(
                            spoken, files: references, carriage: carriage, redact: privacy.redact)
                        try transcript?.write(Array(lines.utf8))
                    } else {
                        transcriptLine.removeAll(keepingCapacity: true)
                        TranscriptWriter.write(spoken, files: references, carriage: carriage, into: &transcriptLine)
                        try transcript?.write(transcriptLine)
                    }
                    records.append(
                        .init(hit: shown, filesJSON: privacy.redact(references.json(carriage)), references: references))
                    if let deletedAt = message.deletedAt {
                        line.removeAll(keepingCapacity: true)
                        BundleRecords.deletion(
                            kind: "message", id: message.id, dialogID: message.dialogID, deletedAt: deletedAt,
                            into: &line)
                        try deletions.append(record: line)
                    }
                    if let sender = message.senderID { userIDs.insert(sender) }
                    if let recipient = message.recipientID, recipient != 0 { userIDs.insert(recipient) }
                    first = min(first ?? message.dateSent, message.dateSent)
                    last = max(last ?? message.dateSent, message.dateSent)
                    messageCount += 1
                    if messageCount % 10_000 == 0 { progress(messageCount) }
                }
                try messageFiles.write(records)
            }
            try messageFiles.finish()
            if let transcript { files.append(try transcript.finish(records: nil)) }
            let transcripts = files.count

            // Without a query the bundle is the whole archive, dialogs and users without messages included.
            let dialogFilter = query == nil ? nil : dialogIDs
            let dialogs = try stage.create("dialogs.jsonl")
            for try await batch in snapshot.dialogs(ids: dialogFilter) {
                for dialog in batch {
                    line.removeAll(keepingCapacity: true)
                    BundleRecords.dialog(privacy.dialog(dialog), into: &line)
                    try dialogs.append(record: line)
                    if let deletedAt = dialog.deletedAt {
                        line.removeAll(keepingCapacity: true)
                        BundleRecords.deletion(
                            kind: "dialog", id: dialog.id, dialogID: nil, deletedAt: deletedAt, into: &line)
                        try deletions.append(record: line)
                    }
                }
            }
            let membership = try stage.create("membership.jsonl")
            for try await batch in snapshot.memberships(dialogIDs: dialogFilter) {
                for period in batch {
                    line.removeAll(keepingCapacity: true)
                    BundleRecords.membership(privacy.membership(period), into: &line)
                    try membership.append(record: line)
                    userIDs.insert(period.userID)
                }
            }
            let users = try stage.create("users.jsonl")
            for try await batch in snapshot.users(ids: query == nil ? nil : userIDs.sorted()) {
                for user in batch {
                    line.removeAll(keepingCapacity: true)
                    BundleRecords.user(privacy.user(user), into: &line)
                    try users.append(record: line)
                }
            }
            let revisions = try stage.create("revisions.jsonl")
            for try await batch in snapshot.revisions(matching: query) {
                for (revision, keys) in zip(batch.items, batch.attachmentKeys) {
                    let references = resolver.resolve(keys: keys, files: batch.files)
                    line.removeAll(keepingCapacity: true)
                    BundleRecords.revision(
                        privacy.revision(revision), files: privacy.redact(references.json(carriage)), into: &line)
                    try revisions.append(record: line)
                }
            }

            let counts: [String: JSONValue] = [
                "messages": .int(messageCount), "dialogs": .int(dialogs.records), "users": .int(users.records),
                "revisions": .int(revisions.records), "membership": .int(membership.records),
                "deletions": .int(deletions.records), "transcripts": .int(transcripts),
            ]
            for file in [messagesJSON, messagesCSV, deletions, dialogs, membership, users, revisions] {
                files.append(try file.finish(records: file.records))
            }
            var body: [String: JSONValue] = [
                "archive": .object([
                    "id": .string(identity.id.uuidString.lowercased()),
                    "created_at": .string(ISO8601.format(identity.createdAt)),
                ]),
                "time_range": .object([
                    "first_message": first.map { .string(ISO8601.format($0)) } ?? .null,
                    "last_message": last.map { .string(ISO8601.format($0)) } ?? .null,
                ]),
                "counts": .object(counts),
                "entry_mtime": .int(last ?? identity.createdAt),
                "attachments": resolver.manifestEntry,
            ]
            body["privacy"] = privacy.manifestEntry()
            return Staged(files: files, body: body, messages: messageCount, attachments: resolver.stored)
        }
    }
}
