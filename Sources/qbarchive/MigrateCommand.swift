import Archive
import ArchiveMigration
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive migrate`: moves an archive to another backend (a SQLite file to a PostgreSQL database or back).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move an archive between a SQLite file and a PostgreSQL database; resumable, verified.",
        discussion: """
            Copies everything: users, dialogs, membership, messages with their revisions, hides, tombstones \
            and deletion evidence, crawl state, runs, the file list and the stored attachment files (from the \
            source's file store to the destination's), the audit log (its chain still verifies), legal holds and \
            the erasure register. The destination takes the source's identity, so both export the same bytes. \
            The source is only read. Progress goes to standard error.

            Resumable: run the same command again after an interruption; nothing is written twice and the parts \
            already complete are skipped. At the end, source and destination are read back: each part's count \
            and SHA-256 (messages: of their JSON Lines export with raw records) are printed and must agree.

            Refused: the same archive as source and destination, a source that does not exist, a destination \
            holding another archive (another archive id), an archive a crawl is writing.

            Exit codes: 0 migrated and verified, 2 usage (the same place twice, a bad URL), 10 an archive \
            cannot be opened (or a stored file of the source is missing), 11 a crawl holds either archive's lock, \
            12 the destination holds another archive, 13 the destination differs from the source after copying.

            Examples:
              qbarchive migrate --from chat.sqlite --to postgresql://qbarchive@/chat
              qbarchive migrate --from postgresql://qbarchive@/chat --to chat-copy.sqlite
            """
    )

    @Option(help: "The archive to copy: a SQLite file or a postgresql:// URL.") var from: String
    @Option(help: "Where to copy it: a new or empty SQLite file or PostgreSQL database, or an earlier copy.")
    var to: String
    @Option(help: "Records per batch (one transaction each).") var batchSize = 1_000
    @Flag(help: "Print progress events and the summary as JSON Lines on standard output.") var json = false
    @Option(help: .hidden) var stopAfterBatches: Int?

    func validate() throws {
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1") }
    }

    func run() async throws {
        let output = StandardStreams()
        let sourceBackend = try ArchiveLocation.backend(for: from)
        let destinationBackend = try ArchiveLocation.backend(for: to)
        if try MigrateLocks.samePlace(from, to) {
            throw CommandFailure(
                "--from and --to name the same archive; give another file or database as --to", code: .usage)
        }
        if !ArchiveLocation.isPostgres(from), !FileManager.default.fileExists(atPath: from) {
            throw CommandFailure("No archive at \(from): give the archive to migrate as --from", code: ExitCode(10))
        }
        let locks = try MigrateLocks.takeFiles([from, to])
        defer { locks.release() }
        let source: any ArchiveReader & VerbatimTableAccess
        let destination: any ArchiveWriter & VerbatimTableAccess
        do {
            guard
                let reader = try await sourceBackend.openReader(at: from, statementTimeout: nil)
                    as? any ArchiveReader & VerbatimTableAccess,
                let writer = try await destinationBackend.openOrCreate(at: to).archive
                    as? any ArchiveWriter & VerbatimTableAccess
            else { throw CommandFailure("this archive backend cannot be migrated", code: ExitCode(1)) }
            source = reader
            destination = writer
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        let sessions = try await MigrateLocks.takeSessions([source, destination])
        defer { Task { await sessions.release() } }

        var migration = Migration(source: source, destination: destination)
        migration.batchSize = batchSize
        migration.stopAfterBatches = stopAfterBatches
        let reporter = MigrateReporter(json: json, output: output)
        migration.progress = { reporter.event($0) }
        let started = Date()
        do {
            let report = try await migration.run()
            await sessions.release()
            reporter.finish(
                report, from: source.location, to: destination.location, seconds: Date().timeIntervalSince(started))
        } catch let mismatch as MigrationMismatch {
            reporter.figures(mismatch.figures)
            throw CommandFailure(mismatch.localizedDescription, code: ExitCode(13))
        } catch let error as MigrationError {
            switch error {
            case .differentArchive: throw CommandFailure(error.localizedDescription, code: ExitCode(12))
            case .stoppedEarly: throw CommandFailure(error.localizedDescription, code: ExitCode(1))
            case .sourceFileUnreadable: throw CommandFailure(error.localizedDescription, code: ExitCode(10))
            case .mismatch: throw CommandFailure(error.localizedDescription, code: ExitCode(13))
            }
        }
    }
}
