import Archive
import ArgumentParser
import Export
import Foundation
import QuickBlox

/// `qbarchive import`: restore a verified bundle into an archive.
struct ImportCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Restore an export bundle into an archive (new or existing); idempotent.",
        discussion: """
            The bundle is verified first (as by qbarchive verify); a bundle that fails is not imported at all. \
            A new archive takes the identity of the archive the bundle came from, so exporting it again gives \
            the same bundle. An existing archive keeps every record it already has and gains the others: \
            importing twice changes nothing, and a record it already holds stays as it holds it even where \
            the bundle's copy is newer: an import does not merge. Such records (messages edited, deleted or \
            hidden by a user since; dialogs deleted, hidden or renamed; users renamed) are counted in a warning \
            on standard error, with a few of their ids (and under "not_merged" with --json, and in the audit \
            log); to have the bundle's state, import it into a new archive. Attachment files in the bundle are copied into the archive's \
            file store (ARCHIVE.files), checked against their SHA-256, and recorded as stored; a file the \
            bundle names but does not hold keeps its status (too large, gone, ...) or stays to be fetched. \
            Recorded in the archive's audit log.

            A bundle whose signer is not checked is refused unless --allow-unsigned is given: anyone who edits \
            a bundle can recompute its checksums, and sign it with a key of their own, so only a signature \
            checked with --key (the exporter's public key) shows who made it. Unsigned bundles, and signed ones \
            imported without --key, need --allow-unsigned.

            A record that cannot be read in a bundle whose checksums are right (written by a newer qbarchive, \
            or edited) stops the import there. A new SQLite archive is then removed; otherwise every record \
            before that line is kept (erasures applied again, audited) and the error says how many: import a \
            readable copy to complete it.

            Exit codes: 0 done, 2 usage (bad key file), 10 archive unreadable, 20 the bundle failed verification, \
            is not signed or its signer not checked (without --key or --allow-unsigned), or holds a record that \
            cannot be read.

            Example:
              qbarchive import case-42.tar.gz --archive restored.sqlite --key keys/compliance.pub
            """
    )

    @Argument(help: "The bundle file, or every part of a split bundle.") var bundles: [String]
    @Option(help: "The archive to restore into, created when missing; QB_ARCHIVE when not given.") var archive: String =
        ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Option(help: "Require a signature by this public key.") var key: String?
    @Flag(
        help:
            "Import a bundle whose signer is not checked: unsigned, or signed and given without --key (its checksums prove integrity against accidents only)."
    )
    var allowUnsigned = false
    @Flag(help: "Print a JSON summary.") var json = false

    func run() async throws {
        if !allowUnsigned, key == nil {
            let bundles = bundles
            let signed: Bool
            do {
                signed = try await OwnThread.run { try BundleVerifier.isSigned(path: bundles[0]) }
            } catch let problem as BundleProblem {
                throw CommandFailure(
                    "import refused: \(problem.localizedDescription); nothing was imported", code: ExitCode(20))
            } catch {
                throw CommandFailure(error.localizedDescription, code: ExitCode(10))
            }
            guard signed else {
                throw CommandFailure(
                    "import refused: \(bundles[0]) is not signed, so nothing shows it was not edited (anyone can "
                        + "recompute its checksums); nothing was imported. Ask for a signed bundle and pass --key, or "
                        + "pass --allow-unsigned if you trust where it came from",
                    code: ExitCode(20))
            }
            // A signature checked against nothing proves nothing: whoever edits a bundle can sign it again with
            // a key of their own (`qbarchive keygen`).
            throw CommandFailure(
                "import refused: \(bundles[0]) is signed, but without --key nothing shows whose key signed it "
                    + "(anyone who edits a bundle can sign it again with a key of their own); nothing was imported. "
                    + "Pass --key with the exporter's public key (`qbarchive verify` prints the signer's "
                    + "fingerprint), or --allow-unsigned if you trust where it came from",
                code: ExitCode(20))
        }
        // Verified before any archive is opened or made: a bundle that fails leaves no trace.
        let importer = BundleImport(publicKeyPath: key)
        let bundles = bundles
        let verified: BundleImport.VerifiedBundle
        do {
            verified = try await OwnThread.run { try importer.verify(bundles: bundles) }
        } catch let problem as BundleProblem {
            throw CommandFailure(
                "import refused: \(problem.localizedDescription); nothing was imported", code: ExitCode(20))
        } catch let error as ExportError {
            if case .badKey = error { throw CommandFailure(error.localizedDescription, code: .usage) }
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        let isFile = !ArchiveLocation.isPostgres(archive)
        let storeExisted = FileManager.default.fileExists(atPath: archive + ".files")
        let backend = try ArchiveLocation.backend(for: archive)
        let (store, created): (any ArchiveWriter, Bool)
        do {
            (store, created) = try await backend.openOrCreate(at: archive)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        let summary: BundleImport.Summary
        do {
            summary = try await OwnThread.run {
                if created, let identity = verified.identity { try await store.adoptIdentity(identity) }
                return try await importer.run(verified, into: store)
            }
        } catch let problem as BundleProblem {
            // An attachment file that cannot be restored: no record was stored.
            if created, isFile { Self.remove(archive, store: !storeExisted) }
            throw CommandFailure(
                "import refused: \(problem.localizedDescription); no record was imported", code: ExitCode(20))
        } catch let stopped as BundleImport.Stopped {
            if created, isFile {
                Self.remove(archive, store: !storeExisted)
                throw CommandFailure(
                    "import refused: \(stopped.problem.localizedDescription); nothing was imported (the new "
                        + "archive was removed)", code: ExitCode(20))
            }
            // The records before it stay (importing is idempotent): made as safe as a finished import's.
            try? await store.settleAfterBulkChange()
            let erasedAgain = try await Self.eraseAgain(in: store)
            try? await store.appendAudit(
                action: "import",
                detail: .object([
                    "bundles": .object(verified.digests.mapValues(JSONValue.string)),
                    "stopped": .string(stopped.problem.localizedDescription),
                    "records": .int(stopped.records), "inserted": .int(stopped.inserted),
                    "erased_again": .int(erasedAgain),
                ]))
            throw CommandFailure(
                "import stopped: \(stopped.problem.localizedDescription). The \(stopped.records) records before it "
                    + "were stored (\(stopped.inserted) of them new) and are kept"
                    + (erasedAgain > 0 ? ", \(erasedAgain) messages erased again as the erasure register says" : "")
                    + "; none after it. Importing adds nothing twice: import a readable copy of the bundle to "
                    + "complete it", code: ExitCode(20))
        } catch let error as ExportError {
            if created, isFile { Self.remove(archive, store: !storeExisted) }
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        let erasedAgain = try await Self.eraseAgain(in: store)
        _ = try? await store.appendAudit(
            action: "import",
            detail: .object([
                "bundles": .object(verified.digests.mapValues(JSONValue.string)), "records": .int(summary.records),
                "inserted": .int(summary.inserted), "files": .int(summary.files), "file_bytes": .int(summary.fileBytes),
                "erased_again": .int(erasedAgain), "not_merged": summary.notMerged.json,
            ]))
        if json {
            print(
                JSONValue.object([
                    "archive": .string(archive), "created": .bool(created), "records": .int(summary.records),
                    "inserted": .int(summary.inserted), "files": .int(summary.files),
                    "file_bytes": .int(summary.fileBytes), "erased_again": .int(erasedAgain),
                    "not_merged": summary.notMerged.json,
                ]).jsonString)
        } else {
            print(
                "imported \(bundles.joined(separator: ", ")) into \(archive): \(summary.records) records, "
                    + "\(summary.inserted) new, \(summary.files) attachment files"
                    + (erasedAgain > 0
                        ? "; \(erasedAgain) messages erased again, as the archive's erasure register says" : ""))
        }
        if !summary.notMerged.isEmpty { Self.warn(summary.notMerged, archive: archive) }
    }

    /// Says on standard error which records the archive kept older than the bundle's copies: an import that
    /// leaves the archive behind its bundle must not pass in silence (a scheduled job mails what it prints there).
    private static func warn(_ notMerged: NotMerged, archive: String) {
        let records = notMerged.records == 1 ? "1 record" : "\(notMerged.records) records"
        FileHandle.standardError.write(
            Data(
                ("warning: \(records) of the bundle were already in \(archive) and are newer in the bundle; the archive "
                    + "kept its own copies (an import does not merge): \(notMerged.summary). For example: "
                    + "\(notMerged.examples.joined(separator: ", ")). To have the bundle's state, import it into a new "
                    + "archive.\n").utf8))
    }

    /// An archive's erasures outlive the bundles made before them: what came back is erased again (legal holds
    /// kept). Returns how many messages that erased.
    private static func eraseAgain(in store: any ArchiveWriter) async throws -> Int {
        let held = try await HoldCheck.held(store).reduce(into: Set<String>()) { $0.formUnion($1.ids) }
        do {
            return try await store.reapplyErasures(keeping: held, at: ArchiveTime.now())
        } catch {
            throw CommandFailure(
                "imported, but the erasure register could not be applied again: \(error.localizedDescription); "
                    + "run the import again (it adds nothing twice) before using the archive", code: ExitCode(10))
        }
    }

    /// Removes an archive this import created, and the file store beside it when the import made that too.
    private static func remove(_ path: String, store: Bool) {
        for suffix in ["", "-wal", "-shm"] + (store ? [".files"] : []) {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
