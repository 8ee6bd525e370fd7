import Foundation

/// The permissions of what qbarchive creates: readable and writable by their owner only.
///
/// An archive, its attachments, its exports and their checksum files hold people's messages, so nobody but
/// the account that made them may read them, whatever the umask (as `borg` does with its default umask 0077).
/// To share an archive or an export with a group, change its mode afterwards: SQLite gives an archive's `-wal`
/// and `-shm` files the mode of the archive itself, and a replaced export keeps none of the old one's mode.
public enum PrivateFiles {
    /// The mode of a file qbarchive creates: `rw-------`.
    public static let fileMode: mode_t = 0o600
    /// The mode of a folder qbarchive creates: `rwx------`.
    public static let directoryMode: mode_t = 0o700

    /// Creates an empty file at `path` with ``fileMode``, failing if the name exists; SQLite then makes its
    /// database in the file, and its journals with the file's mode.
    /// - Returns: `0` on success, or the `errno` of the failure.
    public static func createEmpty(at path: String) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        guard descriptor >= 0 else { return errno }
        close(descriptor)
        return 0
    }

    /// Creates the folder at `path` and any missing parents with ``directoryMode`` (folders that exist keep
    /// their mode).
    public static func createDirectory(atPath path: String) throws {
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: Int(directoryMode)])
    }
}
