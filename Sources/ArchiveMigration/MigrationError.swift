import Foundation

/// Why a migration stopped, in words a user can act on (no location shows a password: archives describe
/// themselves without it).
public enum MigrationError: Error, LocalizedError, Sendable, Hashable {
    /// The destination holds another archive's records (another archive id).
    case differentArchive(destination: String, destinationID: String, sourceID: String)
    /// Cut short after this many batches (the `--stop-after-batches` test hook); running again resumes.
    case stoppedEarly(batches: Int)
    /// A stored file of the source is missing or corrupt there, so it cannot be copied.
    case sourceFileUnreadable(sha256: String, reason: String)
    /// Source and destination differ after copying: the parts that differ.
    case mismatch(parts: [String])

    public var errorDescription: String? {
        switch self {
        case .differentArchive(let destination, let destinationID, let sourceID):
            "\(destination) holds another archive (id \(destinationID), not the source's \(sourceID)); migrate "
                + "into an empty database or a new file, or into a copy made by an earlier migrate of this source"
        case .stoppedEarly(let batches):
            "stopped after \(batches) batches as asked; run the same migrate again to finish"
        case .sourceFileUnreadable(let sha256, let reason):
            "the source's stored file \(sha256) cannot be copied: \(reason); run qbarchive verify-store on the "
                + "source (with --requeue and a crawl to fetch it again), then migrate again"
        case .mismatch(let parts):
            "the destination differs from the source after migrating (\(parts.joined(separator: ", "))); was "
                + "either archive written meanwhile? Run migrate again; if they still differ, report it"
        }
    }
}
