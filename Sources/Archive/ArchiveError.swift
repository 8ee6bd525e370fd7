import Foundation

/// Why the archive could not be opened, read or written.
///
/// The crawler maps ``missing(path:)``, ``notAnArchive(path:reason:)`` and ``newerFormat(path:)``
/// to exit code 10 ("archive missing or unreadable"); the others are ordinary errors.
public enum ArchiveError: Error, LocalizedError, Equatable, Sendable {
    /// No file at the path given to ``SQLiteArchive/open(at:)`` or ``SQLiteArchive/openReadOnly(at:)``.
    case missing(path: String)
    /// ``SQLiteArchive/create(at:)`` refuses to touch an existing file.
    case alreadyExists(path: String)
    /// The file exists but is not a qbarchive archive (not SQLite, or SQLite without `archive_meta`).
    case notAnArchive(path: String, reason: String)
    /// The archive has migrations this build does not know: it was written by a newer qbarchive.
    case newerFormat(path: String)
    /// A read-only open found migrations still to apply.
    case needsUpgrade(path: String)
    /// An item of a page could not be decoded as a QuickBlox record.
    case undecodableItem(kind: String, index: Int, reason: String)
    /// A message of a page belongs to another dialog than the page.
    case messageOutsideDialog(messageID: String, messageDialogID: String, pageDialogID: String)
    /// An archive that already holds data cannot take another archive's identity.
    case notEmpty(path: String)
    /// The run id given to ``SQLiteArchive/finishRun(_:status:counts:error:at:)`` does not exist.
    case unknownRun(Int64)
    /// A read ran past the handle's statement timeout and was stopped.
    case timedOut(seconds: Double)
    /// A backup copy could not be made, or was made and is not sound (nothing was left at `path`).
    case backupFailed(path: String, reason: String)
    /// The backend has no such operation (a backend whose own tools do it better, say).
    case unsupported(String)
    /// An erasure (or hold) names something the archive does not hold.
    case unknownTarget(String)
    /// A legal hold was placed after an erasure was checked against the holds and before it began.
    case holdPlacedMeanwhile(Int64)
    /// The archive exists but SQLite cannot open it (its folder on a read-only file system, say).
    case cannotOpen(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .missing(let path):
            return "No archive at \(path). Create one first (a first crawl creates it) or check the --archive path."
        case .alreadyExists(let path):
            return "\(path) already exists; open it instead of creating it, or choose another path."
        case .notAnArchive(let path, let reason):
            return "\(path) is not a qbarchive archive (\(reason)). Check the --archive path; nothing was changed."
        case .cannotOpen(let path, let reason):
            return "cannot open the archive \(path): \(reason). Nothing was changed."
        case .newerFormat(let path):
            return "\(path) was written by a newer qbarchive. Upgrade qbarchive to read or write it."
        case .needsUpgrade(let path):
            return
                "\(path) uses an older archive format. Open it once read-write (for example with a crawl) to upgrade it."
        case .undecodableItem(let kind, let index, let reason):
            return "Item \(index) of the \(kind) page could not be read: \(reason). The page was not archived."
        case .messageOutsideDialog(let messageID, let messageDialogID, let pageDialogID):
            return
                "Message \(messageID) belongs to dialog \(messageDialogID), not to the page's dialog \(pageDialogID). "
                + "The page was not archived."
        case .notEmpty(let path):
            return "\(path) already holds data; a bundle's identity can only be given to a new archive."
        case .unknownRun(let id):
            return "Run \(id) is not recorded in this archive; begin a run before finishing it."
        case .timedOut(let seconds):
            let limit = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            return "The query ran longer than the \(limit) s limit and was stopped. Narrow it (a date range, a dialog, "
                + "fewer alternatives) and try again."
        case .backupFailed(let path, let reason):
            return "The backup \(path) was not made: \(reason). Nothing was left under that name."
        case .unsupported(let message):
            return message
        case .unknownTarget(let message):
            return message.prefix(1).uppercased() + message.dropFirst() + "; nothing was changed."
        case .holdPlacedMeanwhile(let id):
            return "Legal hold #\(id) was placed while this erasure was being checked against the holds, so nothing "
                + "was changed; run it again to check it against the new hold."
        }
    }
}
