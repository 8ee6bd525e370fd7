import TextIndex

/// What to tell someone who typed a name that is not a field: the nearest fields, the field a word from another
/// search tool means, or the flag that does what a non-field (`limit`, `sort`) asked for.
extension QueryField {
    /// Every name a query may put before `:`: the fields and their aliases, and the shortcuts.
    private static let suggestible: [String] = (Array(names.keys) + QueryShortcut.names).sorted()

    /// Names other search tools use, and the name of ours that means the same.
    static let synonyms: [String: String] = [
        "author": "from", "by": "from", "user": "from", "sender_login": "from", "recipient_login": "to",
        "channel": "in", "chat": "in", "room": "in", "group": "in", "conversation": "in", "thread": "in",
        "since": "after", "until": "before", "older_than": "before", "newer_than": "after", "date_before": "before",
        "date_after": "after", "body": "message", "content": "message", "msg": "message", "subject": "message",
        "attachment": "has", "attachments": "has", "type": "dialog_type", "kind": "dialog_type", "state": "is",
        "status": "is",
    ]

    /// The fields nearest to `name` within a small edit distance (one edit per four letters, at least one), best
    /// first, at most three; names shorter than four letters are suggested only for a four-letter name one edit
    /// away (`hass` → `has`), or they would claim every short word before a `:` (`re:`).
    static func suggestions(for name: String) -> [String] {
        let lower = name.lowercased()
        if let synonym = synonyms[lower] { return [synonym] }
        var scored: [(name: String, distance: Int)] = []
        for candidate in suggestible where candidate.count >= 4 || (candidate.count == 3 && lower.count == 4) {
            let limit = max(1, candidate.count / 4)
            guard abs(candidate.count - lower.count) <= limit else { continue }
            // Ties go to the canonical name: `attachment.type` is as near `attachment_type`.
            let canonical = names[candidate]?.name == candidate
            let distance = 2 * EditDistance.between(lower, candidate) + (canonical ? 0 : 1)
            if distance <= 2 * limit + 1 { scored.append((candidate, distance)) }
        }
        var seen: Set<String> = []
        return scored.sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }.map(\.name)
            .filter { seen.insert(names[$0]?.name ?? $0).inserted }.prefix(3).map { $0 }
    }

    /// The closest field name or alias to `name`, for "did you mean".
    static func suggestion(for name: String) -> String? {
        suggestions(for: name).first
    }

    /// "did you mean `a`?", "did you mean `a` or `b`?", "did you mean `a`, `b` or `c`?"
    static func didYouMean(_ names: [String]) -> String? {
        guard let last = names.last else { return nil }
        let quoted = names.map { "`\($0)`" }
        guard names.count > 1 else { return "did you mean \(quoted[0])?" }
        return "did you mean \(quoted.dropLast().joined(separator: ", ")) or `\(last)`?"
    }

    /// A name that is not a field but asks for something a flag does (`limit:10`, `sort:date`): what to
    /// write instead.
    static func flagInstead(of name: String) -> String? {
        switch name.lowercased() {
        case "limit", "top", "first", "max", "count":
            return
                "the number of results is not part of a query: use --limit N on the command line (limit=N in the API)"
        case "offset", "skip", "page", "start":
            return "paging is not part of a query: use --offset N or --all on the command line (offset=N in the API)"
        case "sort", "order", "orderby", "order_by", "sortby", "sort_by":
            return
                "the order is not part of a query: use --sort newest, oldest or rank (sort=-date, date or rank in the API)"
        case "tz", "timezone", "zone":
            return "the time zone is not part of a query: `qbarchive search --tz ZONE` (tz=ZONE in the API); stats "
                + "and export read dates in UTC — write an offset in the date instead (2024-03-01T00:00+01:00)"
        default:
            return nil
        }
    }
}
