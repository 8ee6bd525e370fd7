import Archive
import Crypto
import Foundation

/// A file written under a temporary name and renamed into place only when complete, or standard output.
///
/// A crash, a full disk or an error leaves at most a `.NAME.partial-PID` file beside the target, never a
/// half file under the final name: an auditor who finds `export.tar.gz` can trust it is whole. Bytes are
/// buffered (1 MiB), counted and hashed (SHA-256) on the way through, so the caller learns the size and
/// digest of what it wrote without reading it back. Unless told to replace, the file is put into place
/// with `link(2)`, which fails when the name exists: an earlier export is never overwritten, even by a
/// second export finishing at the same moment. Written with POSIX calls: `FileHandle` offers neither
/// `fsync` before the rename nor errors that name the path.
public final class OutputFile {
    /// Where the bytes end up (`-` for standard output).
    public let path: String
    private let temporaryPath: String?
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private var hasher = SHA256()
    /// Bytes written so far.
    public private(set) var size = 0
    private var closed = false
    private let budget: ByteBudget?
    private let replace: Bool

    /// Opens `path` for writing (a temporary name beside it), or standard output for `-`; `budget` caps
    /// the bytes written (shared by every file of one export). With `replace` false, ``commit()`` throws
    /// ``ExportError/exists(path:)`` rather than replace a file already under the name.
    public init(path: String, budget: ByteBudget? = nil, replace: Bool = false) throws(ExportError) {
        self.path = path
        self.budget = budget
        self.replace = replace
        buffer.reserveCapacity(1 << 20)
        if path == "-" {
            temporaryPath = nil
            descriptor = STDOUT_FILENO
            return
        }
        let url = URL(fileURLWithPath: path)
        let temporary =
            url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).partial-\(ProcessInfo.processInfo.processIdentifier)"
            ).path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, PrivateFiles.fileMode)
        guard fd >= 0 else { throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        temporaryPath = temporary
        descriptor = fd
    }

    deinit {
        if !closed, let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends bytes.
    public func write(_ bytes: some Collection<UInt8>) throws(ExportError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Appends a string's UTF-8 bytes.
    public func write(_ text: String) throws(ExportError) {
        try write(text.utf8)
    }

    private func flush() throws(ExportError) {
        try budget?.spend(buffer.count)
        hasher.update(data: buffer)
        size += buffer.count
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes, syncs and renames the file into place; returns the SHA-256 (hex) of everything written.
    @discardableResult
    public func commit() throws(ExportError) -> String {
        try flush()
        closed = true
        let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        guard let temporaryPath else { return digest }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw ExportError.cannotWrite(path: path, reason: reason)
        }
        try Self.place(temporaryPath, at: path, replace: replace)
        return digest
    }

    /// Moves a finished file into place: `rename(2)` when replacing, otherwise `link(2)` (atomic, and fails
    /// when the name exists) and then the temporary name removed. File systems without hard links fall back to
    /// a check and a rename. On failure the temporary file is removed.
    static func place(_ temporaryPath: String, at path: String, replace: Bool) throws(ExportError) {
        defer { unlink(temporaryPath) }
        if replace {
            guard rename(temporaryPath, path) == 0 else {
                throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            return
        }
        if link(temporaryPath, path) == 0 { return }
        let failure = errno
        if failure == EEXIST { throw ExportError.exists(path: path) }
        guard failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP || failure == EXDEV else {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(failure)))
        }
        guard access(path, F_OK) != 0 else { throw ExportError.exists(path: path) }
        guard rename(temporaryPath, path) == 0 else {
            throw ExportError.cannotWrite(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Abandons the file: the temporary name is removed and nothing appears under the final name.
    public func discard() {
        guard !closed else { return }
        closed = true
        if let temporaryPath {
            close(descriptor)
            unlink(temporaryPath)
        }
    }
}
