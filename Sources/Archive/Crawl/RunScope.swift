/// The `scope` a crawl run records in `runs`, and which runs cover which for reading edits again
/// (``ArchiveReader/updatedSince(scope:)``).
public enum RunScope {
    /// The suffix of a run limited to some dialogs (`crawl --dialog`): `app dialogs`, `user dialogs`.
    public static let dialogsSuffix = " dialogs"

    /// What a run of `scope` (`app` or `user`) records, limited to some dialogs or not.
    public static func recorded(_ scope: String, dialogsOnly: Bool) -> String {
        dialogsOnly ? scope + dialogsSuffix : scope
    }

    /// The recorded scopes of the whole runs whose start bounds a crawl of `scope` (recorded form): an app run
    /// covers every user's dialogs, a user run its user's. Runs recorded before scopes were told apart (`NULL`)
    /// count as before.
    public static func covering(_ scope: String) -> [String] {
        let base = scope.hasSuffix(dialogsSuffix) ? String(scope.dropLast(dialogsSuffix.count)) : scope
        return base == "app" ? ["app"] : ["app", base]
    }

    /// Whether a run recorded as `scope` read everything its kind of crawl reads (no dialog list); `--where` runs
    /// are told by their query.
    public static func isWhole(_ scope: String?) -> Bool {
        !(scope?.hasSuffix(dialogsSuffix) ?? false)
    }
}
