import Crypto
import Foundation

/// The content-addressed directory beside an archive that holds attachment files: `PATH.files/`.
///
/// A file's path is its SHA-256 in hex, split after two digits: `PATH.files/sha256/ab/cdef…`. The same
/// bytes attached many times are stored once, a file can never be half-written under its final name
/// (it is written to `tmp/`, fsynced, then renamed into place, and the directory fsynced), and anyone
/// can check a file with `sha256sum`: its name is its hash.
///
/// Written by hand over POSIX calls: Foundation's `FileHandle` offers no fsync of a directory, which a
/// crash-safe rename needs, and no library in the dependency set does content addressing.
public struct FileStore: Sendable, Hashable {
    /// The store's root directory.
    public let root: String

    /// The store beside the archive at `archivePath` (`archivePath + ".files"`).
    public init(archivePath: String) { root = archivePath + ".files" }

    /// A store at `root`.
    public init(root: String) { self.root = root }

    /// Whether `hex` is a SHA-256 in lower-case hex (64 digits): anything else is refused before it can
    /// become a path.
    public static func isDigest(_ hex: String) -> Bool {
        hex.utf8.count == 64 && hex.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Where the file with this SHA-256 lives (whether or not it is there).
    public func path(for sha256: String) -> String {
        "\(root)/sha256/\(sha256.prefix(2))/\(sha256.dropFirst(2))"
    }

    /// Whether the store has a file under this SHA-256 (its content is not checked; see ``verify(_:)``).
    public func contains(_ sha256: String) -> Bool {
        Self.isDigest(sha256) && FileManager.default.fileExists(atPath: path(for: sha256))
    }

    /// Starts writing a new file into `tmp/`; ``Writer/commit()`` moves it to its content address.
    public func makeWriter() throws(FileStoreError) -> Writer {
        try createDirectory("\(root)/tmp")
        let temporary = "\(root)/tmp/\(UUID().uuidString.lowercased()).part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, PrivateFiles.fileMode)
        guard descriptor >= 0 else { throw .io(path: temporary, operation: "create", errno: errno) }
        return Writer(store: self, temporaryPath: temporary, descriptor: descriptor)
    }

    /// Re-hashes the file stored under `sha256`.
    public func verify(_ sha256: String) -> FileCheck {
        let path = path(for: sha256)
        guard Self.isDigest(sha256), let stream = InputStream(fileAtPath: path) else { return .missing }
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        stream.open()
        defer { stream.close() }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var size = 0
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 { return .unreadable }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            size += count
        }
        let actual = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        return actual == sha256 ? .ok(size: size) : .corrupt(actual: actual)
    }

    /// Stores a file that already exists elsewhere (an import), copying it through a ``Writer``.
    ///
    /// - Returns: the copy's SHA-256 and size.
    public func store(copying source: String) throws(FileStoreError) -> (sha256: String, size: Int) {
        guard let stream = InputStream(fileAtPath: source) else {
            throw .io(path: source, operation: "open", errno: ENOENT)
        }
        let writer = try makeWriter()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count < 0 {
                writer.discard()
                throw .io(path: source, operation: "read", errno: EIO)
            }
            if count == 0 { break }
            let written = buffer.withUnsafeBytes { writer.write(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            if !written {
                writer.discard()
                throw writer.failure ?? .io(path: writer.temporaryPath, operation: "write", errno: EIO)
            }
        }
        return try writer.commit()
    }

    /// Removes temporary files a killed process left in `tmp/`.
    public func removeLeftovers() {
        let directory = "\(root)/tmp"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasSuffix(".part") {
            try? FileManager.default.removeItem(atPath: "\(directory)/\(name)")
        }
    }

    func createDirectory(_ path: String) throws(FileStoreError) {
        do {
            try PrivateFiles.createDirectory(atPath: path)
        } catch {
            throw .io(path: path, operation: "create directory", errno: (error as NSError).code == 0 ? EIO : errno)
        }
    }

    /// fsyncs a directory so that a rename into it survives a crash.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }
}

/// What re-hashing a stored file found.
public enum FileCheck: Sendable, Hashable {
    case ok(size: Int)
    case missing
    case unreadable
    /// The bytes hash to `actual`, not to the file's name.
    case corrupt(actual: String)
}

/// Why the file store could not write or read a file.
public enum FileStoreError: Error, LocalizedError, Sendable, Hashable {
    case io(path: String, operation: String, errno: Int32)

    public var errorDescription: String? {
        switch self {
        case .io(let path, let operation, let code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
