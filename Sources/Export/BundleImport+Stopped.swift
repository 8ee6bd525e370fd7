import Archive
import Foundation

extension BundleImport {
    /// The parts of a bundle that passed ``BundleImport/verify(bundles:)``: checksums (and signature, when a key
    /// was given) right, every part there, a copy of an archive rather than a disclosure.
    public struct VerifiedBundle: Sendable {
        public let paths: [String]
        let reports: [BundleVerifier.Report]

        /// The identity of the archive the bundle came from (its first part's manifest), for a new archive to
        /// take; `nil` when the manifest names none.
        public var identity: ArchiveIdentity? { BundleImport.identity(of: reports[0].manifest) }
        /// Each part's SHA-256, as verification computed it: what the audit log records.
        public var digests: [String: String] {
            Dictionary(zip(paths, reports.map(\.sha256))) { first, _ in first }
        }
    }

    /// An import that stopped at a record it cannot read, in a bundle whose checksums were right (a bundle
    /// written by a newer qbarchive, or one edited and checksummed again).
    ///
    /// What the archive holds then is a prefix of the bundle: every record before ``problem`` is stored, none
    /// after it. Importing is idempotent, so importing a readable copy afterwards completes it.
    public struct Stopped: Error, LocalizedError, Sendable, Hashable {
        /// The record, or the file, that could not be read.
        public var problem: BundleProblem
        /// Records stored before it, and how many of them the archive did not have.
        public var records: Int
        public var inserted: Int

        public var errorDescription: String? {
            "\(problem.localizedDescription); the \(records) records before it were stored (\(inserted) of them new)"
        }
    }
}
