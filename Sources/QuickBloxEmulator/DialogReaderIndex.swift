import QuickBlox

/// Which dialogs each user may list: the private and group dialogs it occupies, and every public dialog.
///
/// `GET /chat/Dialog.json` once scanned every dialog of the application for each page it served, and an
/// app-scope crawl asks for every user's list: at 10,000 dialogs and 500 users the emulator spent the first
/// minutes of a 5M crawl copying dialogs it then left out (docs/performance.md, "Memory and scaling"). The
/// index turns a page into the requesting user's own dialogs. ``EmulatorState`` drops it whenever its dialogs
/// change and the next listing builds it again, so it can never disagree with them; whether the user removed a
/// dialog for themselves (`hiddenFor`) is still checked on the dialog itself.
struct DialogReaderIndex: Sendable {
    /// Private and group dialogs by occupant.
    private var byOccupant: [Int: [String]] = [:]
    /// Public dialogs, which every user lists.
    private var publicIDs: [String] = []

    init(_ dialogs: [String: EmulatorState.StoredDialog]) {
        for (id, stored) in dialogs {
            if stored.dialog.type == .publicGroup {
                publicIDs.append(id)
            } else {
                for occupant in Set(stored.dialog.occupantIDs) { byOccupant[occupant, default: []].append(id) }
            }
        }
    }

    /// Every dialog `user` may list, each once, in no particular order: a superset of what it sees (a dialog
    /// it removed for itself is among them).
    func candidates(for user: Int) -> [String] {
        publicIDs + (byOccupant[user] ?? [])
    }
}
