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
            importing twice changes nothing. Attachment files in the bundle are copied into the archive's \
            file store (ARCHIVE.files), checked against their SHA-256, and recorded as stored; a file the \
            bundle names but does not hold keeps its status (too large, gone, ...) or stays to be fetched. \
            Recorded in the archive's audit log.

            An unsigned bundle is refused unless --allow-unsigned is given: anyone who edits a bundle can \
            recompute its checksums, so only a signature (checked with --key) shows who made it.

            Exit codes: 0 done, 2 usage (bad key file), 10 archive unreadable, 20 the bundle failed verification, \
            is not signed (without --allow-unsigned) or holds a record that cannot be read.

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
    @Flag(help: "Import a bundle that is not signed (its checksums prove integrity against accidents only).")
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
        }
        let created = !FileManager.default.fileExists(atPath: archive)
        let storeExisted = FileManager.default.fileExists(atPath: archive + ".files")
        let backend = try ArchiveLocation.backend(for: archive)
        let store: any ArchiveWriter
        do {
            store = created ? try await backend.create(at: archive) : try await backend.openWriter(at: archive)
        } catch {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        let importer = BundleImport(publicKeyPath: key)
        let bundles = bundles
        let summary: BundleImport.Summary
        do {
            summary = try await OwnThread.run {
                let identity = try BundleImport.identity(ofBundle: bundles[0])
                if created, let identity { try await store.adoptIdentity(identity) }
                return try await importer.run(bundles: bundles, into: store)
            }
        } catch let problem as BundleProblem {
            if created { Self.remove(archive, store: !storeExisted) }
            throw CommandFailure(
                "import refused: \(problem.localizedDescription); nothing was imported", code: ExitCode(20))
        } catch let error as ExportError {
            if created { Self.remove(archive, store: !storeExisted) }
            if case .badKey = error { throw CommandFailure(error.localizedDescription, code: .usage) }
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        }
        // An archive's erasures outlive the bundles made before them: what came back is erased again.
        let held = try await HoldCheck.held(store).reduce(into: Set<String>()) { $0.formUnion($1.ids) }
        let erasedAgain: Int
        do {
            erasedAgain = try await store.reapplyErasures(keeping: held, at: ArchiveTime.now())
        } catch {
            throw CommandFailure(
                "imported, but the erasure register could not be applied again: \(error.localizedDescription); "
                    + "run the import again (it adds nothing twice) before using the archive", code: ExitCode(10))
        }
        var digests: [String: JSONValue] = [:]
        for bundle in bundles { digests[bundle] = .string((try? BundleVerifier.fileSHA256(bundle)) ?? "") }
        _ = try? await store.appendAudit(
            action: "import",
            detail: .object([
                "bundles": .object(digests), "records": .int(summary.records),
                "inserted": .int(summary.inserted), "files": .int(summary.files), "file_bytes": .int(summary.fileBytes),
                "erased_again": .int(erasedAgain),
            ]))
        if json {
            print(
                JSONValue.object([
                    "archive": .string(archive), "created": .bool(created), "records": .int(summary.records),
                    "inserted": .int(summary.inserted), "files": .int(summary.files),
                    "file_bytes": .int(summary.fileBytes), "erased_again": .int(erasedAgain),
                ]).jsonString)
        } else {
            print(
                "imported \(bundles.joined(separator: ", ")) into \(archive): \(summary.records) records, "
                    + "\(summary.inserted) new, \(summary.files) attachment files"
                    + (erasedAgain > 0
                        ? "; \(erasedAgain) messages erased again, as the archive's erasure register says" : ""))
        }
    }

    /// Removes an archive this import created, and the file store beside it when the import made that too.
    private static func remove(_ path: String, store: Bool) {
        for suffix in ["", "-wal", "-shm"] + (store ? [".files"] : []) {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
