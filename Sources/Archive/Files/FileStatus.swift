/// Where an attachment's file stands in the archive.
public enum FileStatus: String, Sendable, Hashable, CaseIterable, Codable {
    /// Referenced by a message; not downloaded (yet): `crawl --attachments files` fetches it.
    case listed
    /// Downloaded, hashed and in the file store.
    case ok
    /// Larger than `--attachment-max-bytes` when it was last considered.
    case tooLarge = "too_large"
    /// The server has no such file (404 or 410).
    case gone
    /// A `url` on another host than QuickBlox's, not fetched without `--external-urls`.
    case external
    /// Every attempt of a run failed; the next run with `--attachments files` tries again.
    case failed

    /// Whether a run fetching files should (re)try it: listed and failed ones, and the policy-dependent
    /// ones (too large, external) that a run with other limits may now take.
    public var isFetchable: Bool { self != .ok && self != .gone }
}
