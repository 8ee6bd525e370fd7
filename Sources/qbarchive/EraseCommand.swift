import Archive
import ArgumentParser
import Crawler
import Foundation
import QuickBlox

/// `qbarchive erase`: remove a person's, a dialog's or a message's content from an archive for good.
struct EraseCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase a person, a dialog or a message from an archive for good (GDPR erasure).",
        discussion: """
            --user ID|LOGIN: every message the person sent (text, attachments, custom fields, raw record, \
            earlier versions), the attachment files no one else's message names, and their profile (login, \
            name, e-mail, phone, custom data → a stable pseudonym such as erased-3f2a9c0d1e2b). \
            --dialog ID: every message in the dialog, and its name, photo and custom data. --message ID: one \
            message.

            Each message keeps its skeleton — id, dialog, time, sender and recipient ids — marked erased, so \
            counts and threads stay truthful. Gone means gone from the bytes: the text leaves both full-text \
            indexes, which are then merged; freed pages are zeroed (secure_delete); the write-ahead log is \
            folded in and truncated; the file is rewritten (VACUUM). The erasure is recorded in the erasure \
            register and the audit log (who, when, why, how many — no content), and later crawls store what \
            the server still has of it already erased.

            Stop scheduled crawls first (the archive's lock is taken; exit 11 while a crawl runs). Backups \
            made before are not changed. --dry-run counts what would go and changes nothing.

            A legal hold (qbarchive hold) that keeps any of it refuses the whole erasure (exit 15, naming \
            the hold).

            Exit codes: 0 done, 2 usage, 10 archive unreadable, 11 a crawl holds the archive, 14 the archive \
            holds no such user, dialog or message, 15 a legal hold keeps part of it.

            Examples:
              qbarchive erase --archive chat.sqlite --user 100042 --reason "GDPR request 2024-117" --dry-run
              qbarchive erase --archive chat.sqlite --user alice --reason "GDPR request 2024-117"
              qbarchive erase --archive chat.sqlite --message 65f1c0c2e9a4e0b0001a1b2c3 --reason "posted by mistake"
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL; QB_ARCHIVE when not given.") var archive:
        String = ""
    @Option(
        help: ArgumentHelp(
            "A person, by numeric id or login; id:N or login:TEXT when digits could be either.",
            valueName: "ID|LOGIN")) var user: String?
    @Option(help: ArgumentHelp("A dialog, by id.", valueName: "ID")) var dialog: String?
    @Option(help: ArgumentHelp("One message, by id.", valueName: "ID")) var message: String?
    @Option(help: "Why (recorded in the erasure register and the audit log; no personal data here).")
    var reason: String?
    @Flag(help: "Count what would be erased; change nothing.") var dryRun = false
    @Flag(help: "Print the result as JSON.") var json = false

    mutating func validate() throws {
        try resolveArchive()
        let given = [user, dialog, message].compactMap { $0 }
        guard given.count == 1 else {
            throw ValidationError("give exactly one of --user, --dialog or --message (\(given.count) given)")
        }
        guard given[0].allSatisfy({ !$0.isWhitespace && !$0.isNewline }), !given[0].isEmpty else {
            throw ValidationError("the id or login to erase is empty or holds spaces")
        }
        if let reason, reason.count > 500 { throw ValidationError("--reason is limited to 500 characters") }
    }

    var target: ErasureTarget {
        if let user { return .user(user) }
        if let dialog { return .dialog(id: dialog) }
        return .message(id: message ?? "")
    }

    func run() async throws {
        let lock = try await ArchiveLocation.lockForMaintenance(archive, command: "erase")
        defer { lock.release() }
        let store = try await lock.writer(archive)
        let report: ErasureReport
        do {
            _ = try await store.purgeErased()  // an earlier erasure cut short first
            var target = self.target
            if let user {
                guard let id = try await UserReference(text: user).resolve(in: store) else {
                    throw CommandFailure(
                        "the archive holds no user with the id or login \(user) (an erased user's login is a "
                            + "pseudonym; give the id)", code: ExitCode(14))
                }
                target = .user(String(id))
            }
            let holdsSeen = try await HoldCheck.newest(store)
            if let hold = try await HoldCheck.blocking(target, in: store) {
                throw CommandFailure(
                    "legal hold #\(hold.id) (\(hold.kind.rawValue) \(hold.target), since \(ISO8601.format(hold.createdAt)): "
                        + "\(hold.reason)) keeps data this erasure would remove; nothing was changed. Release the hold "
                        + "first (qbarchive hold release \(hold.id) --reason …) when the law allows it",
                    code: ExitCode(15))
            }
            report = try await store.erase(
                target, reason: reason, dryRun: dryRun, holdsSeen: holdsSeen, at: ArchiveTime.now())
            // The statistics roll-ups of the dialogs it touched (a person's messages reach many).
            if !dryRun { try await store.settleAfterBulkChange() }
        } catch let error as ArchiveError {
            if case .unknownTarget = error { throw CommandFailure(error.localizedDescription, code: ExitCode(14)) }
            if case .holdPlacedMeanwhile = error {
                throw CommandFailure(error.localizedDescription, code: ExitCode(15))
            }
            throw CommandFailure(error.localizedDescription, code: ExitCode(1))
        }
        if json {
            let object: JSONValue = [
                "target": .string(report.target.kind), "id": .string(report.targetID), "dry_run": .bool(dryRun),
                "messages": .int(report.messages), "revisions": .int(report.revisions), "files": .int(report.files),
                "users": .int(report.users), "dialogs": .int(report.dialogs),
                "pseudonym": report.pseudonym.map(JSONValue.string) ?? .null,
                // A dry run records nothing: no erasure number, though its rolled-back transaction drew one.
                "erasure": dryRun ? .null : report.registerID.map { .int(Int($0)) } ?? .null,
            ]
            print(object.jsonString)
            return
        }
        let what = "\(report.target.kind) \(report.targetID)"
        let counts =
            "\(report.messages) messages, \(report.revisions) earlier versions, \(report.files) attachment files"
            + (report.users > 0 ? ", the profile (now \(report.pseudonym ?? "a pseudonym"))" : "")
            + (report.dialogs > 0 ? ", the dialog's name, photo and data" : "")
        if dryRun {
            print("dry run: erasing \(what) would remove \(counts); nothing was changed")
        } else {
            print("erased \(what): \(counts); recorded as erasure #\(report.registerID ?? 0)")
        }
    }
}
