import CArchive

/// Reads any of the three formats (auto-detected) from a file path, entry by entry, streaming.
///
/// Used to verify a bundle after writing it and by tests; it never holds more than one block of an
/// entry in memory. libarchive reports some damage only as a warning (a zip CRC mismatch, a skipped
/// damaged tar header); the reader treats every warning as an error except those about names it does
/// not use (user, group and link names), so a damaged container is never read as if it were sound.
/// Not thread-safe; use one reader from one task at a time.
public final class ContainerReader {
    private let archive: OpaquePointer
    private let path: String
    private var current: (path: String, size: Int?, read: Int)?
    private var previousPath: String?
    private var isAtEnd = false
    private var failure: ContainerError?

    /// Which format was detected (valid after the first nextEntry()); nil for other containers, such as
    /// an uncompressed tar, which libarchive can read too.
    public private(set) var format: ContainerFormat?

    /// Opens the file; the format is detected from its first bytes, not from its name.
    public init(path: String) throws(ContainerError) {
        guard let archive = archive_read_new() else {
            throw ContainerError(message: "libarchive cannot allocate a reader", entry: nil)
        }
        self.archive = archive
        self.path = path
        // The return values say only whether an external program would be needed for some filter.
        _ = archive_read_support_filter_all(archive)
        _ = archive_read_support_format_tar(archive)
        _ = archive_read_support_format_zip(archive)
        let status = withUTF8Locale { archive_read_open_filename(archive, path, 10_240) }
        guard status == ARCHIVE_OK else {
            throw .libarchive(archive, "cannot open \(path)", status: status, entry: nil)
        }
    }

    deinit {
        archive_read_free(archive)
    }

    /// The next entry's header, or nil at the end of the archive.
    ///
    /// Data of the current entry that was not read is skipped.
    public func nextEntry() throws(ContainerError) -> ContainerEntry? {
        if let failure { throw failure }
        if isAtEnd { return nil }
        do {
            return try withUTF8Locale { () throws(ContainerError) in try readHeader() }
        } catch {
            failure = error
            throw error
        }
    }

    /// Reads up to `maximum` bytes of the current entry's data; an empty array at its end.
    public func read(maximum: Int = 65_536) throws(ContainerError) -> [UInt8] {
        if let failure { throw failure }
        guard var entry = current else {
            throw ContainerError(message: "no current entry: call nextEntry() first", entry: nil)
        }
        guard maximum > 0 else {
            throw ContainerError(message: "read(maximum:) needs a positive maximum", entry: entry.path)
        }
        do throws(ContainerError) {
            var status = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: maximum) { buffer, count in
                status = withUTF8Locale { archive_read_data(archive, buffer.baseAddress, maximum) }
                count = max(0, status)
            }
            if status < 0 {
                // ARCHIVE_WARN here is damage, e.g. "ZIP bad CRC"; FAILED and FATAL are too.
                throw ContainerError.libarchive(
                    archive, "cannot read the entry data of \(path)", status: Int32(clamping: status), entry: entry.path
                )
            }
            entry.read += bytes.count
            current = entry
            if bytes.isEmpty, let size = entry.size, entry.read != size {
                throw ContainerError(
                    message: "entry data ends after \(entry.read) of \(size) bytes in \(path)", entry: entry.path)
            }
            return bytes
        } catch {
            failure = error
            throw error
        }
    }

    private func readHeader() throws(ContainerError) -> ContainerEntry? {
        var pointer: OpaquePointer?
        let status = archive_read_next_header(archive, &pointer)
        if format == nil { format = detectedFormat() }
        if status == ARCHIVE_EOF {
            isAtEnd = true
            current = nil
            return nil
        }
        let after = previousPath.map { " after \"\($0)\"" } ?? ""
        guard let pointer, status == ARCHIVE_OK || status == ARCHIVE_WARN else {
            throw .libarchive(archive, "cannot read the next entry\(after) in \(path)", status: status, entry: nil)
        }
        if status == ARCHIVE_WARN, !isHarmlessWarning() {
            let name = archive_entry_pathname_utf8(pointer).map { String(cString: $0) }
            throw .libarchive(archive, "damaged entry header in \(path)", status: status, entry: name)
        }
        guard let cName = archive_entry_pathname_utf8(pointer),
            let name = String(validatingCString: cName)
        else {
            throw ContainerError(message: "an entry name\(after) in \(path) is not valid UTF-8", entry: nil)
        }
        let size = archive_entry_size_is_set(pointer) != 0 ? Int(archive_entry_size(pointer)) : nil
        let isRegularFile = archive_entry_filetype(pointer) & 0o170000 == 0o100000
        current = (name, isRegularFile ? size : 0, 0)
        previousPath = name
        return ContainerEntry(
            path: name, size: size, modificationTime: Int(archive_entry_mtime(pointer)), isRegularFile: isRegularFile)
    }

    /// Whether the last warning only concerns a name the reader does not use.
    private func isHarmlessWarning() -> Bool {
        guard let cString = archive_error_string(archive) else { return false }
        let message = String(cString: cString).lowercased()
        return ["uname", "gname", "linkname"].contains { message.hasPrefix($0) }
    }

    private func detectedFormat() -> ContainerFormat? {
        let base = archive_format(archive) & ARCHIVE_FORMAT_BASE_MASK
        let filter = archive_filter_code(archive, 0)
        switch (base, filter) {
        case (ARCHIVE_FORMAT_TAR, ARCHIVE_FILTER_GZIP): return .tarGz
        case (ARCHIVE_FORMAT_TAR, ARCHIVE_FILTER_ZSTD): return .tarZst
        case (ARCHIVE_FORMAT_ZIP, ARCHIVE_FILTER_NONE): return .zip
        default: return nil
        }
    }
}
