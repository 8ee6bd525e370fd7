import Archive
import QuickBlox
import Search

/// Writes the selected messages as one JSON Lines or CSV file (or to standard output).
public struct MessageExport: Sendable {
    public var selection: ExportSelection
    /// `.jsonl` or `.csv`.
    public var format: ExportFormat
    /// JSON Lines: include the server's raw record of each message.
    public var raw: Bool
    /// CSV for spreadsheets: a UTF-8 byte-order mark, CRLF line endings, and cells that a spreadsheet would
    /// run as a formula neutralised (`MessageRecord.appendCSVField(_:spreadsheet:into:)`).
    public var excel: Bool
    /// Replace a file already at the target (`--force`); otherwise that is ``ExportError/exists(path:)``.
    public var replace = false
    /// What every string written is cleared of (`--redact`, `--redact-pattern`); empty by default.
    public var redaction = Redaction.none

    public init(selection: ExportSelection, format: ExportFormat, raw: Bool = false, excel: Bool = false) {
        self.selection = selection
        self.format = format
        self.raw = raw
        self.excel = excel
    }

    /// What one export wrote.
    public struct Summary: Sendable, Hashable {
        public var messages: Int
        public var bytes: Int
        /// SHA-256 (hex) of the file's bytes.
        public var sha256: String
        /// What was redacted and pseudonymised (``ExportPrivacy``), for the audit log; `nil` for nothing.
        public var privacy: JSONValue?
    }

    /// Streams the messages into `path` (`-` for standard output) in `(dialog, date_sent, id)` order.
    ///
    /// Each message says which files its attachments name and where they stand (`attachment_files`);
    /// the files themselves go only into bundles.
    ///
    /// One snapshot, streamed in batches, and a reused line buffer: memory stays flat on any archive. The
    /// file appears under its name only when complete. Writes as it reads: call it on a thread of its own
    /// (``OwnThread/run(_:)``); `progress` gets the number of messages written every 10,000.
    public func run(
        archive: any ArchiveReader, to path: String, progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws -> Summary {
        try await archive.withSnapshot { snapshot in
            let file = try OutputFile(path: path, replace: replace)
            do {
                let privacy = ExportPrivacy(redaction: redaction, subject: selection.subject?.id)
                let count = try await write(snapshot, into: file, privacy: privacy, progress: progress)
                let digest = try file.commit()
                return Summary(
                    messages: count, bytes: file.size, sha256: digest, privacy: privacy.manifestEntry())
            } catch {
                file.discard()
                throw error
            }
        }
    }

    private func write(
        _ snapshot: any ArchiveSnapshot, into file: OutputFile, privacy: ExportPrivacy, progress: (Int) -> Void
    ) async throws -> Int {
        var count = 0
        var line: [UInt8] = []
        line.reserveCapacity(4096)
        let newline: [UInt8] = excel ? [13, 10] : [10]
        if format == .csv {
            if excel { try file.write([0xEF, 0xBB, 0xBF]) }
            try file.write(ExportRecord.csvHeader)
            try file.write(newline)
        }
        var resolver = FileReferenceResolver(carriage: .none)
        for try await batch in snapshot.messages(matching: selection.query, raw: raw && format == .jsonl) {
            for (hit, keys) in zip(batch.items, batch.attachmentKeys) {
                let files = resolver.resolve(keys: keys, files: batch.files)
                let shown = privacy.hit(hit)
                line.removeAll(keepingCapacity: true)
                if format == .csv {
                    ExportRecord.writeCSV(shown, files: files, spreadsheet: excel, into: &line)
                } else {
                    MessageRecord.writeJSON(
                        shown, raw: raw, files: privacy.redact(files.json(.none)), into: &line)
                }
                line.append(contentsOf: newline)
                try file.write(line)
                count += 1
                if count % 10_000 == 0 { progress(count) }
            }
        }
        return count
    }
}
