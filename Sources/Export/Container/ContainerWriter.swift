import CArchive
import Foundation

/// Writes a deterministic tar.gz, tar.zst or zip: the same entries (same order, sizes, bytes, times)
/// always give byte-identical output. Output goes to a callback (a file, a hasher, a pipe).
///
/// A compliance bundle must be reproducible byte for byte, so nothing about the host or the moment may
/// leak into it: tar entries are pax-restricted with mode 0644, owner 0:0, no user or group names and
/// only the given modification time; the gzip header carries no time stamp; zip dates are written in
/// UTC whatever the host's time zone. libarchive also pads or truncates a tar entry silently when the
/// data does not match the declared size, so the writer counts the bytes itself and fails instead.
/// Output is the same only for the same compressor versions: see `libraryVersion`.
///
/// After any error the writer is failed: every later call throws the same error, and the bytes already
/// delivered must be discarded. Not thread-safe; use one writer from one task at a time.
public final class ContainerWriter {
    /// The container being written.
    public let format: ContainerFormat
    /// How its compressed bytes are laid out.
    public let encoding: ContainerEncoding
    private let archive: OpaquePointer
    private let sink: ContainerOutput
    /// The compressor between libarchive's tar and the output, for tar.gz in the parallel encoding.
    private let gzip: ParallelGzip?
    private let context: Unmanaged<ContainerOutput>
    private var current: (path: String, size: Int, written: Int)?
    private var modificationTimes: [Int] = []
    private var isFinished = false
    private var failure: ContainerError?

    /// Prepares a writer that delivers the container's bytes to `output`, in blocks of 10240 bytes (for tar.gz in
    /// the parallel encoding, a compressed block at a time).
    ///
    /// gzip level 6, zip deflate level 6 and zstd level 3 are the tools' own defaults: a good size for
    /// their speed. `encoding` says whether they run on one thread or on every core (``ContainerEncoding``);
    /// the same entries give the same bytes for the same format and encoding. An error thrown by `output` fails
    /// the writer and is reported in its message.
    public init(
        format: ContainerFormat, encoding: ContainerEncoding, output: @escaping ([UInt8]) throws -> Void
    ) throws(ContainerError) {
        guard let archive = archive_write_new() else {
            throw ContainerError(message: "libarchive cannot allocate a writer")
        }
        self.format = format
        self.encoding = encoding
        self.archive = archive
        if format == .tarGz, encoding == .parallel {
            // libarchive writes the bare tar stream; the blocks are deflated on every core on their way out.
            let gzip = ParallelGzip(level: 6, output: output)
            self.gzip = gzip
            sink = ContainerOutput(output: { bytes in try gzip.write(bytes) })
        } else {
            gzip = nil
            sink = ContainerOutput(output: output)
        }
        context = Unmanaged.passRetained(sink)
        do {
            try withUTF8Locale { () throws(ContainerError) in try configure() }
        } catch {
            failure = error  // deinit frees without writing an end
            throw error
        }
    }

    deinit {
        if !isFinished || failure != nil {
            sink.isDiscarding = true
            archive_write_fail(archive)  // archive_write_free must not write an end after the failure
        }
        archive_write_free(archive)
        context.release()
    }

    private func configure() throws(ContainerError) {
        switch format {
        case .tarGz:
            try check(archive_write_set_format_pax_restricted(archive), "cannot select the pax tar format")
            // In the parallel encoding libarchive writes the bare tar and ``ParallelGzip`` compresses it.
            guard encoding == .serial else { break }
            try check(archive_write_add_filter_gzip(archive), "cannot add the gzip compressor")
            // A NULL value is "!timestamp": the gzip header's MTIME stays 0 instead of the current time.
            try check(
                archive_write_set_filter_option(archive, "gzip", "timestamp", nil), "cannot drop the gzip time stamp")
            try check(
                archive_write_set_filter_option(archive, "gzip", "compression-level", "6"),
                "cannot set the gzip compression level")
        case .tarZst:
            try check(archive_write_set_format_pax_restricted(archive), "cannot select the pax tar format")
            try check(archive_write_add_filter_zstd(archive), "cannot add the zstd compressor")
            try check(
                archive_write_set_filter_option(archive, "zstd", "compression-level", "3"),
                "cannot set the zstd compression level")
            if encoding == .parallel {
                // zstd's multi-threaded mode writes the same bytes for any number of workers ≥ 1.
                let workers = String(max(1, ProcessInfo.processInfo.activeProcessorCount))
                try check(
                    archive_write_set_filter_option(archive, "zstd", "threads", workers),
                    "cannot start zstd's compression threads")
            }
        case .zip:
            try check(archive_write_set_format_zip(archive), "cannot select the zip format")
            try check(
                archive_write_set_format_option(archive, "zip", "compression", "deflate"),
                "cannot select deflate for zip")
            try check(
                archive_write_set_format_option(archive, "zip", "compression-level", "6"),
                "cannot set the zip compression level")
        }
        // Blocks of libarchive's default 10240 bytes reach the output; the last one is delivered as it
        // is rather than padded with zeros (which would follow the gzip, zstd or zip end).
        try check(archive_write_set_bytes_in_last_block(archive, 1), "cannot set the last block size")
        let status = archive_write_open(
            archive, context.toOpaque(),
            { _, _ in ARCHIVE_OK },
            { _, context, buffer, length in
                guard let context else { return -1 }
                let sink = Unmanaged<ContainerOutput>.fromOpaque(context).takeUnretainedValue()
                return sink.accept(UnsafeRawBufferPointer(start: buffer, count: buffer == nil ? 0 : length))
            },
            { _, _ in ARCHIVE_OK })
        try check(status, "cannot open the container for writing")
    }

    /// Starts a regular file entry; exactly `size` bytes must follow through `write`.
    ///
    /// The path is relative, with "/" between directories (e.g. "transcripts/abc.txt"); no directory
    /// entries are needed. `modificationTime` is in seconds since 1970, UTC.
    public func beginEntry(path: String, size: Int, modificationTime: Int) throws(ContainerError) {
        try guardUsable()
        try run { () throws(ContainerError) in
            try completeCurrentEntry()
            try validate(path: path, size: size)
            guard let entry = archive_entry_new() else {
                throw ContainerError(message: "libarchive cannot allocate an entry", entry: path)
            }
            defer { archive_entry_free(entry) }
            _ = archive_entry_update_pathname_utf8(entry, path)
            // libarchive 3.6.2's pax writer dereferences a NULL name when the locale cannot hold it.
            guard archive_entry_pathname(entry) != nil else {
                throw ContainerError(message: "the name cannot be represented without a UTF-8 locale", entry: path)
            }
            archive_entry_set_mode(entry, 0o100644)  // a regular file, rw-r--r--
            archive_entry_set_uid(entry, 0)
            archive_entry_set_gid(entry, 0)
            archive_entry_set_size(entry, Int64(size))
            archive_entry_set_mtime(entry, time_t(modificationTime), 0)
            if format == .zip {
                // The previous entry's end (deflate tail, data descriptor) is written by finish_entry, so
                // after it the count of bytes is where this entry's local header starts.
                try check(archive_write_finish_entry(archive), "cannot end the previous entry", entry: path)
                sink.fixZipLocalHeader(
                    at: Int(archive_filter_bytes(archive, 0)), modificationTime: modificationTime)
            }
            try check(archive_write_header(archive, entry), "cannot write the entry header", entry: path)
            modificationTimes.append(modificationTime)
            current = (path, size, 0)
        }
    }

    /// Appends data to the current entry; may be called many times per entry.
    public func write(_ bytes: [UInt8]) throws(ContainerError) {
        try write(bytes[...])
    }

    /// Appends data to the current entry; may be called many times per entry.
    public func write(_ bytes: ArraySlice<UInt8>) throws(ContainerError) {
        try guardUsable()
        try run { () throws(ContainerError) in
            guard let entry = current else {
                throw ContainerError(message: "data written before beginEntry")
            }
            guard bytes.count <= entry.size - entry.written else {
                throw ContainerError(
                    message: "more data than the declared \(entry.size) bytes (\(entry.written + bytes.count))",
                    entry: entry.path)
            }
            // 0 when all was written, else libarchive's status.
            let status = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                var done = 0
                while done < buffer.count {
                    let count = archive_write_data(archive, base + done, buffer.count - done)
                    guard count > 0 else { return count < 0 ? count : Int(ARCHIVE_FATAL) }
                    done += count
                }
                return 0
            }
            guard status == 0 else {
                throw failureError("cannot write the entry data", status: Int32(clamping: status), entry: entry.path)
            }
            current?.written += bytes.count
        }
    }

    /// Writes the end of the archive and flushes the compressor; call once.
    ///
    /// Until it returns, the output is not a readable container.
    public func finish() throws(ContainerError) {
        try guardUsable()
        try run { () throws(ContainerError) in
            try completeCurrentEntry()
            if format == .zip {
                try check(archive_write_finish_entry(archive), "cannot end the last entry", entry: nil)
                sink.holdZipTail()
            }
            let status = archive_write_close(archive)
            if format == .zip {
                if status != ARCHIVE_OK { sink.isDiscarding = true }
                sink.releaseZipTail(modificationTimes: modificationTimes)
            }
            try check(status, "cannot finish the container", entry: nil)
            if let gzip { sink.finishCompressor(gzip.finish) }
            if let failure = sink.failure { throw failure }
            isFinished = true
        }
    }

    /// libarchive's version details (archive_version_details()), e.g. "libarchive 3.6.2 zlib/1.2.13 liblzma/… libzstd/1.5.4".
    ///
    /// Compressed bytes depend on the zlib and zstd versions, so a reproducibility record names them.
    /// Read once (a `static let` is initialised exactly once, thread-safely): libarchive 3.6.2 rebuilds the
    /// text in a static buffer on every call, so concurrent calls — an export and a verification running
    /// at the same time — corrupted the heap.
    public static let libraryVersion: String = {
        guard let details = archive_version_details() else { return "libarchive (unknown version)" }
        return String(cString: details)
    }()

    // MARK: Checks

    private func guardUsable() throws(ContainerError) {
        if let failure { throw failure }
        if isFinished { throw ContainerError(message: "the container is already finished") }
    }

    /// Runs `body` in a UTF-8 locale; its error becomes the writer's permanent failure.
    private func run(_ body: () throws(ContainerError) -> Void) throws(ContainerError) {
        do {
            try withUTF8Locale(body)
        } catch {
            failure = error
            throw error
        }
    }

    private func completeCurrentEntry() throws(ContainerError) {
        guard let entry = current else { return }
        guard entry.written == entry.size else {
            throw ContainerError(
                message: "only \(entry.written) of the declared \(entry.size) bytes were written", entry: entry.path)
        }
        current = nil
    }

    private func validate(path: String, size: Int) throws(ContainerError) {
        guard size >= 0 else { throw ContainerError(message: "negative size \(size)", entry: path) }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !path.isEmpty, !path.hasPrefix("/"), !path.hasSuffix("/"), !path.utf8.contains(0),
            !components.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
        else {
            throw ContainerError(message: "not a relative file path", entry: path)
        }
    }

    private func check(_ status: Int32, _ what: String, entry: String? = nil) throws(ContainerError) {
        guard status != ARCHIVE_OK else { return }
        throw failureError(what, status: status, entry: entry)
    }

    /// The output's own failure when there is one (libarchive only saw -1), else libarchive's message.
    private func failureError(_ what: String, status: Int32, entry: String?) -> ContainerError {
        if var failure = sink.failure {
            if failure.entry == nil { failure.entry = entry }
            return failure
        }
        return .libarchive(archive, what, status: status, entry: entry)
    }
}
