import QuickBlox

/// A private dialog's name and photo, which most apps set to the other person's name and picture: an erased
/// person's private dialogs lose both, at the erasure and on every later crawl (subject-access exports leave
/// them out for the same reason). Shared by every backend, so the records they store stay the same bytes.
public enum PrivateDialogFace {
    /// `record` (a dialog's raw JSON) with `name` and `photo` set to `null` where present.
    public static func cleared(_ record: JSONValue) -> JSONValue {
        guard case .object(var members) = record else { return record }
        for key in ["name", "photo"] where members[key] != nil { members[key] = .null }
        return .object(members)
    }

    /// `dialog` without its name and photo, when it is private and one of its occupants is in `erased`.
    public static func cleared(_ dialog: Dialog, record: JSONValue, erased: (Int) throws -> Bool) rethrows
        -> (Dialog, JSONValue)
    {
        guard dialog.type == .private, dialog.name != nil || dialog.photo != nil,
            try dialog.occupantIDs.contains(where: erased)
        else { return (dialog, record) }
        var faceless = dialog
        faceless.name = nil
        faceless.photo = nil
        return (faceless, cleared(record))
    }
}
