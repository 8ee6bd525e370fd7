/// What `qbarchive export` writes.
public enum ExportFormat: String, Sendable, Hashable, CaseIterable {
    /// One JSON object per message per line (``Search/MessageRecord``).
    case jsonl
    /// RFC 4180 CSV with a header row.
    case csv
    /// A compressed container with every file, a manifest and checksums.
    case bundle
}
