import Archive
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive backup`: a consistent, checked copy of a live archive.
struct BackupCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy an archive consistently while crawls and serve use it, and check the copy.",
        discussion: """
            Never cp a live archive: a SQLite archive is its file and its write-ahead log (-wal), and a copy \
            of the file alone loses what the log holds, or catches a page half-written. backup uses SQLite's \
            online backup API inside one read transaction, so the copy is the archive as of one instant \
            while crawls and serve go on. The copy is then opened and checked like `qbarchive check` \
            (integrity_check and both full-text indexes), and only a sound copy is put under --out. The \
            attachment file store (ARCHIVE.files/) is copied beside it (OUT.files/): by hard link on the \
            same file system, and only the files the backup lacks, so a repeated backup is quick.

            An existing --out is refused (exit 13) unless --force.

            Exit codes: 0 done, 2 usage, 10 archive unreadable, 13 --out exists or cannot be written, \
            20 the copy is not sound (it is removed; run qbarchive check on the archive).

            Examples:
              qbarchive backup --archive chat.sqlite --out /backups/chat-$(date +%F).sqlite
              qbarchive backup --archive chat.sqlite --out /backups/chat.sqlite --force --json
            """
    )

    @Option(help: "The archive to copy; QB_ARCHIVE when not given.") var archive: String = ""
    @Option(name: .shortAndLong, help: "The new copy (a file path).") var out: String
    @Flag(help: "Replace an existing --out.") var force = false
    @Flag(help: "Leave the attachment file store out (the database only).") var noFiles = false
    @Flag(help: "Print a JSON summary.") var json = false
    @Flag(help: "Print nothing on success (for cron).") var quiet = false

    mutating func validate() throws {
        try resolveArchive()
        guard !out.isEmpty, out != "-" else { throw ValidationError("--out needs a file path (a backup is a file)") }
        let source = URL(fileURLWithPath: archive).standardizedFileURL.path
        let target = URL(fileURLWithPath: out).standardizedFileURL.path
        guard source != target else { throw ValidationError("--out is the archive itself; give another path") }
        guard !(json && quiet) else { throw ValidationError("--json and --quiet cannot be combined") }
    }

    func run() async throws {
        let store = try await ArchiveLocation.reader(archive)
        let backup: ArchiveBackup
        do {
            backup = try await store.backup(to: out, replace: force)
        } catch ArchiveError.alreadyExists(let path) {
            throw CommandFailure("\(path) exists; give --force to replace it, or another --out", code: ExitCode(13))
        } catch ArchiveError.backupFailed(let path, let reason) where reason.hasPrefix("the copy is not sound") {
            throw CommandFailure(
                ArchiveError.backupFailed(path: path, reason: reason).localizedDescription, code: ExitCode(20))
        } catch let error as ArchiveError {
            throw CommandFailure(error.localizedDescription, code: ExitCode(13))
        }
        var files = FileStore.CopySummary()
        if !noFiles {
            do {
                files = try store.fileStore.copy(to: FileStore(archivePath: out))
            } catch {
                throw CommandFailure(
                    "the database was copied to \(out), but the attachment files were not: "
                        + "\(error.localizedDescription)", code: ExitCode(13))
            }
        }
        if json {
            let object: JSONValue = [
                "path": .string(backup.path), "bytes": .int(backup.bytes), "pages": .int(backup.pages),
                "seconds": .double(backup.seconds), "checked": .bool(true),
                "files_copied": .int(files.copied), "files_bytes": .int(files.bytes),
                "files_present": .int(files.present),
            ]
            print(object.jsonString)
        } else if !quiet {
            let size = ByteCountFormatter.string(fromByteCount: Int64(backup.bytes), countStyle: .file)
            var line = String(
                format: "backed up %@ to %@ (%@, checked sound) in %.1f s", archive, out, size, backup.seconds)
            if files.copied + files.present > 0 {
                line += "; attachment files: \(files.copied) copied, \(files.present) already there"
            }
            print(line)
        }
    }
}
