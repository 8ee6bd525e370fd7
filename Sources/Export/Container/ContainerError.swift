import CArchive
import Foundation

/// A libarchive failure with text a user can act on.
///
/// libarchive reports failures as a status code plus a message kept on the archive object; this type
/// carries that message, and the entry concerned, out of the wrapper so the command can print it.
public struct ContainerError: Error, LocalizedError, Sendable, Equatable {
    /// What went wrong; includes libarchive's `archive_error_string` when there is one.
    public var message: String
    /// The entry being read or written, when known.
    public var entry: String?

    public init(message: String, entry: String? = nil) {
        self.message = message
        self.entry = entry
    }

    /// The message, prefixed by the entry when there is one.
    ///
    /// Users see this text; naming the entry tells them which file of the bundle is affected.
    public var errorDescription: String? {
        guard let entry else { return message }
        return "\(entry): \(message)"
    }

    /// An error from the archive's last failure: `what` followed by libarchive's own explanation.
    static func libarchive(_ archive: OpaquePointer, _ what: String, status: Int32, entry: String?) -> ContainerError {
        var text = what
        if let cString = archive_error_string(archive) {
            text += ": " + String(cString: cString)  // invalid UTF-8 in a quoted name is repaired
        } else {
            text += " (libarchive status \(status))"
        }
        return ContainerError(message: text, entry: entry)
    }
}
