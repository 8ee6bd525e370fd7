import Archive
import ArgumentParser
import Export
import Foundation
import QueryLanguage
import QuickBlox
import Search

/// `qbarchive export`: JSON Lines, CSV or a verifiable bundle of an archive (or of a query's messages).
struct ExportCommand: AsyncParsableCommand, ArchiveTaking {
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

            What is written follows --out's name: .jsonl, .csv, or a bundle's .tar.gz, .tar.zst or .zip (other \
            names: a tar.gz bundle). --format and --bundle choose for other names; one that contradicts the \
            name (--format csv --out x.jsonl, --bundle zip --out x.tar.gz) is exit 2, not a file whose name lies.

            An export never replaces a file: a target that exists (a bundle's checksum file or parts \
            included) is exit 13, naming it, before anything is read, unless --force. For scheduled exports, \
            --out takes {date} (2024-03-01) and {time} (101500Z, UTC) in the file name, and --keep N removes \
            the oldest exports the same --out made beyond the newest N (with their checksum files and parts). \
            A --dialog the archive does not hold, a --where naming an unknown user or dialog, and a --since \
            after --until are errors (exit 2), not empty exports.

            --excel writes CSV for spreadsheets: a byte-order mark, CRLF, and every cell that begins with \
            =, +, -, @, tab or CR written as text ('=1+1) so that no message runs as a formula. Plain CSV \
            keeps every text as it is and is what scripts should read; only JSON Lines tells an empty text from \
            none (both are an empty CSV cell).

            Exit codes: 0 done, 1 error, 2 usage (bad option, query or key; unknown dialog or user; empty \
            range), 10 archive unreadable (or a stored attachment file missing or damaged), 13 output exists \
            (without --force) or is not writable.

            Examples:
              qbarchive export --archive chat.sqlite
              qbarchive export --archive chat.sqlite --format bundle --bundle tar.zst --sign keys/compliance
              qbarchive export --archive chat.sqlite --where @payment-scams --no-attachments --out scams.tar.gz
              qbarchive export --archive chat.sqlite --where @payment-scams --out scams.jsonl
              qbarchive export --archive chat.sqlite --format csv --excel --since 2024-03 --until 2024-05 --out q2.csv
              qbarchive export --archive chat.sqlite --format jsonl --dialog 5f1c0c2e9a4e0b0001a1b2c3 --out -
              qbarchive export --archive chat.sqlite --out 'exports/chat-{date}.tar.zst' --keep 7
            """
    )

    @Option(help: "The archive: a SQLite file, or a postgresql:// URL (docs/postgres.md); QB_ARCHIVE when not given.")
    var archive: String = ""
    @Option(
        name: .customLong("format"),
        help:
            "jsonl, csv or bundle. Default: what --out's name ends in (.jsonl, .csv, .tar.gz, .tar.zst, .zip), else bundle."
    )
    var formatOption: ExportFormat?
    @Option(
        name: .customLong("bundle"),
        help: "The bundle's container: tar.gz, tar.zst or zip. Default: what --out's name ends in, else tar.gz.")
    var bundleOption: ContainerFormat?
    @Option(help: "Export only messages matching this query (or @NAME for queries/NAME.qbq).") var `where`: String?
    @Option(help: "Export only this dialog.") var dialog: String?
    @Option(help: "Only messages sent in or after this period (2024-03-01, 2024-03, 7d, ...).") var since: String?
    @Option(help: "Only messages sent in or before this period (--until 2024-03 includes March).") var until: String?
    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Output file, or - for standard output (jsonl and csv). Default: exports/ARCHIVE.EXT",
            discussion: "{date} and {time} in the file name are replaced by the export's UTC date and time."))
    var out: String?
    @Flag(help: "Replace an existing file at --out (by default that is an error, exit 13).") var force = false
    @Option(
        help: ArgumentHelp(
            "After the export, keep only the newest N exports made by this --out template (it needs {date} or {time}).",
            valueName: "N"))
    var keep: Int?
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
    @Option(
        help: ArgumentHelp(
            "Replace e-mail addresses, phone numbers and/or URLs in everything written: emails,phones,urls or all.",
            discussion: """
                Texts, custom fields, attachments, the server's raw records, revisions, transcripts, dialog and \
                user records: a match becomes [email], [phone] or [url]. The manifest (and the audit log) say \
                what was redacted and how many matches each rule replaced. See docs/compliance.md for the rules.
                """,
            valueName: "KINDS"))
    var redact: String?
    @Option(
        name: .customLong("redact-pattern"),
        help: ArgumentHelp(
            "Also replace what this regular expression (ICU syntax) matches with [redacted]; repeatable.",
            valueName: "REGEX"))
    var redactPatterns: [String] = []
    @Option(
        help: ArgumentHelp(
            "A subject-access export: what this user (id or login) took part in, everyone else pseudonymised.",
            discussion: """
                Selects the messages they sent or were sent and every message of each dialog they are or ever \
                were a member of (combined with --where, --dialog, --since and --until). Everyone else becomes \
                participant-N with the id -N, in messages, dialogs, membership and users.jsonl; private dialogs \
                lose their name and photo. Texts stay as written: add --redact for addresses in them.
                """,
            valueName: "USER"))
    var subject: String?
    @Flag(help: "Print a JSON summary instead of a sentence.") var json = false
    @Option(help: "Where saved queries live.") var queries = "queries"
    @Option(help: .hidden) var now: Int?

    /// What the export writes: as `--format` says, else as `--out`'s name says (``named(_:)``), else a bundle.
    var format: ExportFormat { formatOption ?? out.flatMap { Self.named($0) }?.format ?? .bundle }
    /// A bundle's container: as `--bundle` says, else as `--out`'s name says, else tar.gz.
    var bundle: ContainerFormat { bundleOption ?? out.flatMap { Self.named($0) }?.container ?? .tarGz }

    mutating func validate() throws {
        try resolveArchive()
        try validateNaming()
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
        if let keep {
            guard keep >= 1 else { throw ValidationError("--keep \(keep): keep at least 1 export (the new one)") }
            guard let out, out.contains("{date}") || out.contains("{time}") else {
                throw ValidationError(
                    "--keep rotates the exports of one --out template: give --out with {date} or {time}, "
                        + "e.g. --out 'exports/chat-{date}.tar.gz'")
            }
        }
        if force, out == "-" { throw ValidationError("--force replaces a file; standard output has none") }
        if let createdAt, ISO8601.parse(createdAt) == nil {
            throw ValidationError("--created-at \(createdAt) is not an ISO 8601 time such as 2024-03-01T10:00:00Z")
        }
    }

    func run() async throws {
        let whereText = try `where`.map { try QueryInput.resolve($0, queries: queries) }
        let redaction: Redaction
        do {
            redaction = try Redaction(list: redact, patterns: redactPatterns)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        let backend = try ArchiveLocation.backend(for: archive)
        let store: any ArchiveReader
        do {
            store = try await backend.openWriter(at: archive)
        } catch let error as ArchiveError {
            throw CommandFailure(error.localizedDescription, code: ExitCode(10))
        } catch {
            // The archive exists but cannot be opened for writing (read-only media or permissions): export
            // from a read-only handle; the audit entry then cannot be recorded, which the report says.
            store = try await ArchiveLocation.reader(archive)
        }
        var person: ExportSelection.Subject?
        if let subject { person = try await Self.subject(subject, in: store) }
        let selection: ExportSelection
        do {
            selection = try ExportSelection(
                whereText: whereText, dialogID: dialog, since: since, until: until, now: now ?? ArchiveTime.now(),
                subject: person)
        } catch let error as QueryError {
            throw QueryInput.failure(error, query: whereText ?? "")
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        let startedAt = now ?? ArchiveTime.now()
        let template: OutputTemplate?
        do {
            template = try out.flatMap(OutputTemplate.init)
        } catch {
            throw CommandFailure(error.localizedDescription, code: .usage)
        }
        let path = try template?.path(at: startedAt) ?? outputPath()
        var job = ExportJob(
            format: format, selection: selection, raw: raw, excel: excel, container: bundle,
            createdAt: createdAt.flatMap(ISO8601.parse), sign: sign, version: QBArchiveVersion.current,
            maxPartSize: maxPartSize.flatMap(Self.byteCount), attachments: !noAttachments)
        job.replace = force
        job.redaction = redaction
        if !force, let existing = job.existingTargets(path: path).first {
            throw CommandFailure(ExportError.exists(path: existing).localizedDescription, code: ExitCode(13))
        }
        if let dialog, try await store.dialogSummary(id: dialog) == nil {
            throw CommandFailure(
                "--dialog \(dialog): the archive holds no dialog with this id, so nothing was exported "
                    + "(to select a dialog by its name: --where 'in:\"NAME\"')", code: .usage)
        }
        let progress = ExportProgress(enabled: isatty(STDERR_FILENO) == 1 && !json && path != "-")
        let result: ExportJob.Result
        let exportJob = job
        do {
            result = try await OwnThread.run {
                try await exportJob.run(
                    archive: store, path: path, auditing: store as? any ArchiveWriter, at: startedAt,
                    progress: progress.update)
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
        var rotated: [String] = []
        if let keep, let template {
            do {
                rotated = try template.rotate(
                    keep: keep, except: path, extensions: ContainerFormat.allCases.map(\.fileExtension))
            } catch {
                throw CommandFailure(error.localizedDescription, code: ExitCode(13))
            }
        }
        var audited = false
        if let writer = store as? any ArchiveWriter {
            audited = await job.audit(result, archive: writer, path: path, removed: rotated)
        }
        report(result, path: path, audited: audited, removed: rotated)
        if result.messages == 0, !json {
            var reading = "the whole archive"
            if let query = selection.query {
                reading = (try? await store.describe(query, zone: QueryDate.utc)) ?? query.source
            }
            FileHandle.standardError.write(
                Data("note: no archived message matches — understood as: \(reading)\n".utf8))
        }
    }

    /// `--subject`: the user (an id, else a login) and the dialogs their membership history names.
    static func subject(_ text: String, in store: any ArchiveReader) async throws -> ExportSelection.Subject {
        let id = try await UserReference(text: text, option: "--subject").resolve(in: store)
        guard let id else {
            throw CommandFailure(
                "--subject \(text): the archive holds no user with this id or login, so "
                    + "nothing was exported (a subject-access export names someone the archive knows; "
                    + "`qbarchive search --archive A 'from:NAME'` finds a sender by name)", code: .usage)
        }
        let dialogs = try await store.withSnapshot { snapshot in
            var dialogs = Set<String>()
            for try await batch in snapshot.memberships(dialogIDs: nil) {
                for period in batch where period.userID == id { dialogs.insert(period.dialogID) }
            }
            return dialogs.sorted()
        }
        return ExportSelection.Subject(id: id, dialogs: dialogs)
    }

    /// `700M`, `2G`, `1048576`: bytes (K, M, G are powers of 1024).
    static func byteCount(_ text: String) -> Int? { ByteSize.parse(text) }

    private func outputPath() throws -> String {
        if let out { return out }
        let stem = URL(fileURLWithPath: archive).deletingPathExtension().lastPathComponent
        let ext = format == .bundle ? bundle.fileExtension : format.rawValue
        do {
            try PrivateFiles.createDirectory(atPath: "exports")
        } catch {
            throw CommandFailure("cannot create exports/: \(error.localizedDescription)", code: ExitCode(13))
        }
        return "exports/\(stem).\(ext)"
    }

    private func report(_ result: ExportJob.Result, path: String, audited: Bool, removed: [String]) {
        let warning = audited ? "" : " (not recorded in the audit log: the archive is read-only)"
        if json {
            let object = JSONValue.object([
                "path": .string(path), "format": .string(format.rawValue), "messages": .int(result.messages),
                "bytes": .int(result.bytes), "sha256": .string(result.sha256), "audited": .bool(audited),
                "files": .object(result.files.mapValues(JSONValue.string)),
                "removed": .array(removed.map(JSONValue.string)),
            ])
            print(object.jsonString)
        } else if path != "-" {
            let size = ByteCountFormatter.string(fromByteCount: Int64(result.bytes), countStyle: .file)
            var line = "exported \(result.messages) messages to \(path) (\(size), sha256 \(result.sha256))\(warning)\n"
            if !removed.isEmpty {
                line +=
                    "removed \(removed.count) older files (--keep \(keep ?? 0)): \(removed.joined(separator: ", "))\n"
            }
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}

extension ExportFormat: ExpressibleByArgument {}
extension ContainerFormat: ExpressibleByArgument {}
