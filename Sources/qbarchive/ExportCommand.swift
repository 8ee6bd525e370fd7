import Archive
import ArgumentParser
import Export
import Foundation
import QueryLanguage
import QuickBlox
import Search

/// `qbarchive export`: JSON Lines, CSV or a verifiable bundle of an archive (or of a query's messages).
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export messages as JSON Lines, CSV, or a verifiable compressed bundle.",
        discussion: """
            Streams from one consistent snapshot of the archive (crawls may keep writing), in constant memory. \
            Files are written under a temporary name and renamed when complete, so a crash never leaves a \
            half file under the final name. Every export is recorded in the archive's audit log.

            A bundle (the default) holds manifest.json (what, by whom, from which archive, and the SHA-256 of \
            every file), messages.jsonl, messages.csv, dialogs, users, revisions (edit history), membership, \
            deletions, one readable transcript per dialog, README.txt, and attachments/SHA256: every stored \
            file the messages (or their earlier versions) attach, once each. Each message's attachment_files \
            names its files' paths, or why a file is absent (not downloaded, too large, gone, ...); \
            --no-attachments leaves the files out and keeps the references. The same archive and options give \
            a byte-identical bundle; BUNDLE.sha256 is written beside it. Check one with `qbarchive verify`.

            Exit codes: 0 done, 1 error, 2 usage (bad option, query or key), 10 archive unreadable (or a \
            stored attachment file missing or damaged), 13 output not writable.

            Examples:
              qbarchive export --archive chat.sqlite
              qbarchive export --archive chat.sqlite --format bundle --bundle tar.zst --sign keys/compliance
              qbarchive export --archive chat.sqlite --where @payment-scams --no-attachments --out scams.tar.gz
              qbarchive export --archive chat.sqlite --format jsonl --where @payment-scams --out scams.jsonl
              qbarchive export --archive chat.sqlite --format csv --excel --since 2024-03 --until 2024-05 --out q2.csv
              qbarchive export --archive chat.sqlite --format jsonl --dialog 5f1c0c2e9a4e0b0001a1b2c3 --out -
            """
    )

    @Option(help: "The archive file.") var archive: String
    @Option(help: "jsonl, csv or bundle (default).") var format: ExportFormat = .bundle
    @Option(help: "The bundle's container: tar.gz (default), tar.zst or zip.") var bundle: ContainerFormat = .tarGz
    @Option(help: "Export only messages matching this query (or @NAME for queries/NAME.qbq).") var `where`: String?
    @Option(help: "Export only this dialog.") var dialog: String?
    @Option(help: "Only messages sent in or after this period (2024-03-01, 2024-03, 7d, ...).") var since: String?
    @Option(help: "Only messages sent in or before this period (--until 2024-03 includes March).") var until: String?
    @Option(
        name: .shortAndLong, help: "Output file, or - for standard output (jsonl and csv). Default: exports/ARCHIVE.EXT"
    )
    var out: String?
    @Flag(help: "JSON Lines: include the server's raw record of each message.") var raw = false
    @Flag(help: "CSV: add a byte-order mark and CRLF line endings for spreadsheets.") var excel = false
    @Option(help: "Record this creation time in the manifest (ISO 8601); by default none, so bundles are reproducible.")
    var createdAt: String?
    @Option(help: "Sign the manifest with this Ed25519 private key (from qbarchive keygen).") var sign: String?
    @Option(
        help: ArgumentHelp(
            "Split the bundle into parts of at most this size (e.g. 700M, 2G), each with its own manifest.",
            discussion: """
                Files are never split: a part exceeds the size only when one attachment alone is larger. \
                Parts are named NAME.part01.tar.gz, NAME.part02.tar.gz, ...
                """))
    var maxPartSize: String?
    @Flag(help: "Bundle: leave the attachment files out (messages still name each file and its SHA-256).")
    var noAttachments = false
    @Flag(help: "Print a JSON summary instead of a sentence.") var json = false
    @Option(help: "Where saved queries live.") var queries = "queries"
    @Option(help: .hidden) var now: Int?

    func validate() throws {
        if format == .bundle, out == "-" {
            throw ValidationError(
                "a bundle needs a file (its checksum goes beside it); use --format jsonl or csv for -")
        }
        if raw, format != .jsonl { throw ValidationError("--raw goes with --format jsonl (bundles always carry it)") }
        if excel, format != .csv { throw ValidationError("--excel goes with --format csv") }
        if sign != nil, format != .bundle { throw ValidationError("--sign goes with --format bundle") }
        if noAttachments, format != .bundle {
            throw ValidationError("--no-attachments goes with --format bundle (JSON Lines and CSV carry no files)")
        }
        if let maxPartSize {
            guard format == .bundle else { throw ValidationError("--max-part-size goes with --format bundle") }
            guard let bytes = Self.byteCount(maxPartSize), bytes >= 1 << 20 else {
                throw ValidationError("--max-part-size \(maxPartSize) is not a size of at least 1M (use 700M, 2G, ...)")
            }
        }
        if let createdAt, ISO8601.parse(createdAt) == nil {
            throw ValidationError("--created-at \(createdAt) is not an ISO 8601 time such as 2024-03-01T10:00:00Z")
        }
    }

    func run() async throws {
        let whereText = try `where`.map { try QueryInput.resolve($0, queries: queries) }
        let selection: ExportSelection
        do {
            selection = try ExportSelection(
                whereText: whereText, dialogID: dialog, since: since, until: until, now: now ?? ArchiveTime.now())
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: whereText ?? "")
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        let backend = try ArchiveLocation.backend(for: archive)
        let store: any ArchiveReader
        do {
            store = try backend.openWriter(at: archive)
        } catch let error as ArchiveError {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        } catch {
            // The archive exists but cannot be opened for writing (read-only media or permissions): export
            // from a read-only handle; the audit entry then cannot be recorded, which the report says.
            store = try ArchiveLocation.reader(archive)
        }
        let path = try outputPath()
        let progress = ExportProgress(enabled: isatty(STDERR_FILENO) == 1 && !json && path != "-")
        let job = ExportJob(
            format: format, selection: selection, raw: raw, excel: excel, container: bundle,
            createdAt: createdAt.flatMap(ISO8601.parse), sign: sign, version: QBArchiveVersion.current,
            maxPartSize: maxPartSize.flatMap(Self.byteCount), attachments: !noAttachments)
        let result: ExportJob.Result
        do {
            result = try await OwnThread.run {
                try await job.run(archive: store, path: path, progress: progress.update)
            }
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: whereText ?? "")
        } catch let error as ExportError {
            progress.clear()
            if case .badKey = error { throw CommandFailure(error.localizedDescription, code: .usage) }
            if case .attachmentUnavailable = error {
                throw CommandFailure(error.localizedDescription, code: ExitCode(10))
            }
            throw CommandFailure(error.localizedDescription, code: ExitCode(13))
        }
        progress.clear()
        var audited = false
        if let writer = store as? any ArchiveWriter { audited = await job.audit(result, archive: writer, path: path) }
        report(result, path: path, audited: audited)
    }

    /// `700M`, `2G`, `1048576`: bytes (K, M, G are powers of 1024).
    static func byteCount(_ text: String) -> Int? { ByteSize.parse(text) }

    private func outputPath() throws -> String {
        if let out { return out }
        let stem = URL(fileURLWithPath: archive).deletingPathExtension().lastPathComponent
        let ext = format == .bundle ? bundle.fileExtension : format.rawValue
        do {
            try FileManager.default.createDirectory(atPath: "exports", withIntermediateDirectories: true)
        } catch {
            throw CommandFailure("cannot create exports/: \(error.localizedDescription)", code: ExitCode(13))
        }
        return "exports/\(stem).\(ext)"
    }

    private func report(_ result: ExportJob.Result, path: String, audited: Bool) {
        let warning = audited ? "" : " (not recorded in the audit log: the archive is read-only)"
        if json {
            let object = JSONValue.object([
                "path": .string(path), "format": .string(format.rawValue), "messages": .int(result.messages),
                "bytes": .int(result.bytes), "sha256": .string(result.sha256), "audited": .bool(audited),
                "files": .object(result.files.mapValues(JSONValue.string)),
            ])
            print(object.jsonString)
        } else if path != "-" {
            let size = ByteCountFormatter.string(fromByteCount: Int64(result.bytes), countStyle: .file)
            FileHandle.standardError.write(
                Data(
                    "exported \(result.messages) messages to \(path) (\(size), sha256 \(result.sha256))\(warning)\n"
                        .utf8))
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
extension ContainerFormat: ExpressibleByArgument {}
