import Archive
import ArgumentParser
import Foundation
import QuickBlox

/// `qbarchive verify-store`: re-hash the attachment files an archive has stored.
struct VerifyStoreCommand: AsyncParsableCommand, ArchiveTaking {
    static let configuration = CommandConfiguration(
        commandName: "verify-store",
        abstract: "Re-hash every attachment file the archive has stored; report missing or corrupt ones.",
        discussion: """
            Each stored file lives at ARCHIVE.files/sha256/ab/cdef…, named by its SHA-256: every one the archive \
            records is read whole and hashed again. Files the store holds but the archive does not record are \
            listed (a run killed between storing a file and recording it leaves one; it is harmless).

            --requeue marks missing and corrupt files as not downloaded, so the next \
            `qbarchive crawl --attachments files` fetches them again (a corrupt copy is moved aside first).

            Exit codes: 0 intact, 10 the archive cannot be opened, 20 missing or corrupt files.

            Examples:
              qbarchive verify-store --archive chat.sqlite
              qbarchive verify-store --archive chat.sqlite --json
              qbarchive verify-store --archive chat.sqlite --requeue && qbarchive crawl --archive chat.sqlite --attachments files
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""

    mutating func validate() throws {
        try resolveArchive()
    }
    @Flag(help: "Mark missing and corrupt files for download by the next crawl with --attachments files.")
    var requeue = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() async throws {
        let store: any ArchiveReader =
            requeue ? try await ArchiveLocation.writer(archive) : try await ArchiveLocation.reader(archive)
        let report = try await store.verifyFileStore()
        var requeued = 0
        if requeue {
            let fileStore = store.fileStore
            for digest in report.corrupt {
                // Kept aside rather than deleted: someone may want to look at what the disk did to it.
                let aside = "\(fileStore.root)/corrupt"
                try? FileManager.default.createDirectory(atPath: aside, withIntermediateDirectories: true)
                try? FileManager.default.moveItem(atPath: fileStore.path(for: digest), toPath: "\(aside)/\(digest)")
            }
            if let writer = store as? any ArchiveWriter {
                requeued = try await writer.requeueFiles(sha256: report.missing + report.corrupt)
            }
        }
        if json {
            let object: JSONValue = [
                "intact": .bool(report.isIntact), "checked": .int(report.checked), "bytes": .int(report.bytes),
                "missing": .array(report.missing.map(JSONValue.string)),
                "corrupt": .array(report.corrupt.map(JSONValue.string)),
                "unreferenced": .array(report.unreferenced.map(JSONValue.string)), "requeued": .int(requeued),
            ]
            print(object.jsonString)
        } else {
            print(
                "checked \(report.checked) stored files, "
                    + String(format: "%.1f MB", Double(report.bytes) / 1_000_000) + " in \(store.fileStore.root)")
            for digest in report.missing { print("MISSING \(digest)") }
            for digest in report.corrupt { print("CORRUPT \(digest)") }
            if !report.unreferenced.isEmpty {
                print("\(report.unreferenced.count) files in the store are not recorded by the archive (harmless)")
            }
            if requeue, requeued > 0 {
                print("requeued \(requeued) attachments for the next crawl --attachments files")
            }
        }
        guard report.isIntact else {
            throw CommandFailure(
                "store verification FAILED: \(report.missing.count) missing, \(report.corrupt.count) corrupt",
                code: ExitCode(20))
        }
    }
}
