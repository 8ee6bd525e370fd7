import Foundation

/// Why an export, a verification or an import could not be done, in words a user can act on.
public enum ExportError: Error, LocalizedError, Sendable, Equatable {
    /// An output file or directory could not be written.
    case cannotWrite(path: String, reason: String)
    /// An input file could not be read.
    case cannotRead(path: String, reason: String)
    /// The bundle container (tar, zip, compression) could not be written or read.
    case container(String)
    /// A command-line option has a value that cannot be used.
    case badOption(String)
    /// A signing or verification key file is unusable.
    case badKey(path: String, reason: String)
    /// A stored attachment file a bundle must carry is missing from the archive's file store, or damaged.
    case attachmentUnavailable(sha256: String, reason: String)
    /// The export would write more bytes than it may (the service's exports quota).
    case quotaExceeded(limit: Int)
    /// The target exists and the export was not asked to replace it (`--force`).
    case exists(path: String)

    public var errorDescription: String? {
        switch self {
        case .cannotWrite(let path, let reason):
            return "Cannot write \(path): \(reason). Nothing was left under that name; check the path and free space."
        case .cannotRead(let path, let reason):
            return "Cannot read \(path): \(reason)."
        case .container(let message), .badOption(let message):
            return message
        case .badKey(let path, let reason):
            return "The key file \(path) cannot be used: \(reason). Make a key pair with `qbarchive keygen`."
        case .exists(let path):
            return "\(path) exists, and an export never replaces a file silently: give --force to replace it, "
                + "another --out, or an --out with {date} or {time} in it (with --keep N to rotate)."
        case .quotaExceeded(let limit):
            return "The export would write more than the \(limit) bytes left in the exports quota, so it was stopped "
                + "and its files removed. Narrow the selection, or delete old exports."
        case .attachmentUnavailable(let sha256, let reason):
            return "Cannot export the attachment file \(sha256): \(reason). Check the store with "
                + "`qbarchive verify-store` (--requeue marks such files for the next crawl with --attachments files), "
                + "or export with --no-attachments."
        }
    }
}
