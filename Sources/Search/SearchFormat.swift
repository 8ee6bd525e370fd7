/// How `qbarchive search` prints its results.
public enum SearchFormat: String, Sendable, Hashable, CaseIterable {
    /// Aligned columns for people: time (UTC or `--tz`), dialog, sender, snippet with the match highlighted.
    case table
    /// One JSON object per line, keys sorted; see ``SearchOutput/jsonLine(_:)``.
    case jsonl
    /// RFC 4180 CSV with a header row; the columns of ``SearchOutput/csvColumns``.
    case csv
    /// One JSON document: `total`, `shown`, `understood_as`, paging, and `hits` (the objects of `jsonl`).
    case json
}
