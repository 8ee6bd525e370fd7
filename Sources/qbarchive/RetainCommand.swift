import Archive
import ArgumentParser
import Crawler
import Foundation
import QuickBlox

/// `qbarchive retain`: erase what is older than the retention period, except what legal holds keep.
struct RetainCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "retain",
        abstract: "Erase messages older than a retention period, except held ones (a dry run unless --apply).",
        discussion: """
            Without --apply, lists per dialog how many messages sent before the cutoff would be erased, and how \
            many legal holds keep; nothing changes. With --apply, erases them as `qbarchive erase` does (text, \
            attachments, custom fields, revisions, unreferenced files; skeletons stay, the register and audit \
            log record it, the bytes are purged). Held messages are never touched.

            For scheduled runs (after the crawl, under the same lock discipline: exit 11 while a crawl runs):
              qbarchive retain --archive /var/lib/qbarchive/chat.sqlite --older-than 730d --apply --quiet

            Exit codes: 0 done, 2 usage, 10 archive unreadable, 11 a crawl holds the archive.
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL; QB_ARCHIVE when not given.") var archive:
        String = ""
    @Option(
        help: ArgumentHelp(
            "Erase what was sent longer ago than this (730d, 26w → use days: 182d).", valueName: "DURATION"))
    var olderThan: String
    @Flag(help: "Erase (without it, a dry run).") var apply = false
    @Option(help: "Why (recorded with the erasure).") var reason = "retention"
    @Flag(help: "Print JSON.") var json = false
    @Flag(help: "Print nothing on success.") var quiet = false
    @Option(help: .hidden) var now: Int?

    mutating func validate() throws {
        try resolveArchive()
        guard let seconds = DurationText.seconds(olderThan), seconds >= 86_400 else {
            throw ValidationError("--older-than \(olderThan) is not a duration of a day or more (730d, 104w, 2160h)")
        }
    }

    func run() async throws {
        let lock = try await ArchiveLocation.lockForMaintenance(archive, command: "retain")
        defer { lock.release() }
        let store = try await lock.writer(archive)
        let time = now ?? ArchiveTime.now()
        let cutoff = time - (DurationText.seconds(olderThan) ?? 0)
        let holdsSeen = try await HoldCheck.newest(store)
        let held = try await HoldCheck.held(store)
        let keeping = held.reduce(into: Set<String>()) { $0.formUnion($1.ids) }
        _ = try await store.purgeErased()
        let report: ErasureReport
        do {
            report = try await store.erase(
                .sentBefore(cutoff, keeping: keeping), reason: reason, dryRun: !apply, holdsSeen: holdsSeen, at: time)
            if apply { try await store.settleAfterBulkChange() }  // the statistics roll-ups it made stale
        } catch let error as ArchiveError {
            if case .holdPlacedMeanwhile = error {
                throw CommandFailure(error.localizedDescription, code: ExitCode(15))
            }
            throw error
        }
        if json {
            let object: JSONValue = [
                "cutoff": .string(ISO8601.format(cutoff)), "applied": .bool(apply), "messages": .int(report.messages),
                "kept_by_holds": .int(report.kept), "revisions": .int(report.revisions), "files": .int(report.files),
                "per_dialog": .object(report.perDialog.mapValues(JSONValue.int)),
                "holds": .array(held.map { .int(Int($0.hold.id)) }),
            ]
            print(object.jsonString)
            return
        }
        guard !quiet else { return }
        let verb = apply ? "erased" : "would erase"
        print(
            "\(verb) \(report.messages) messages sent before \(ISO8601.format(cutoff)) in \(report.perDialog.count) "
                + "dialogs; \(report.kept) kept by \(held.count) legal holds"
                + (apply ? "" : " (a dry run: nothing changed; --apply to erase)"))
        for (dialog, count) in report.perDialog.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }).prefix(
            apply ? 0 : 50)
        {
            print("  \(dialog): \(count)")
        }
    }
}
