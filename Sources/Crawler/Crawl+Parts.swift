import Archive
import QuickBlox
import QuickBloxClient

extension Crawl {
    /// A walk should go on in `parts` parts from `cursor`: thrown out of the pager's body once the page that
    /// decided it is stored.
    private struct GoOnInParts: Error {
        var cursor: CrawlCursor
        /// The cursor's second.
        var at: Int
        var parts: Int
        /// The first second past the walk's range.
        var end: Int
        var slots: WalkSlots
    }

    /// How many pages a part must have ahead of it, by its walk's estimate, to be worth a slot of its own.
    static let pagesPerPart = 10
    /// How many of a walk's last pages its estimate reads: the pace of a dialog changes (quiet months, a busy
    /// day), and the seconds ahead are read at the pace of the last pages, not of the whole walk.
    static let paceWindow = 8

    /// Walks a dialog's messages from `start` up to `below` (unix seconds, exclusive; `nil`: up to the dialog's
    /// newest message, as its listing gave it), storing each page as it comes, and returns the cursor the walk
    /// ended at.
    ///
    /// A dialog's pages come one after another (each page's cursor comes from the one before), so one long
    /// dialog is a tail nothing else shortens: at 20 ms a response the crawl of 1M messages spent its last 16 s
    /// on the largest dialog alone (docs/performance.md), and at a real server's latency the wait is many
    /// times that. When a slot of the crawl is free (``WalkSlots``: the other dialogs are done) and the walk's
    /// estimate — the seconds left to `below` at the pace of its last pages (``paceWindow``) — leaves at
    /// least ``pagesPerPart`` pages for each, the seconds left are split into parts walked at once, each with
    /// `date_sent[lt]` at the next part's first second (a second is never split; the pager's rules hold inside
    /// each part), each of which may split again as more slots free up.
    ///
    /// Only the walk that `savesCursor` moves the dialog's cursor: page by page until it goes on in parts, then
    /// once, when every part has ended, to where the last part ended. A run stopped or failed in between leaves
    /// the cursor where the parts began; the next run reads their messages again (they are stored once, by id).
    func walkRange(
        _ target: Target, from start: CrawlCursor, below: Int?, savesCursor: Bool, slots: WalkSlots?, runStart: Int
    ) async throws -> CrawlCursor {
        var pager = MessagePager(client: client, dialogID: target.dialog.id, onBehalfOf: target.reader)
        pager.pageSize = options.pageSize
        if let below {
            pager.filters = [("date_sent[lt]", String(below))]
        } else {
            pager.newest = target.newest
        }
        let end = below ?? target.dialog.lastMessageDateSent.map { $0 + 1 }
        var cursor = start
        // The second each of the last pages ended at.
        var recent: [Int] = []
        do {
            try await pager.walk(from: start) { batch in
                try await store(
                    batch.messages, batch.rawMessages, of: target, cursor: savesCursor ? batch.cursor : nil,
                    at: runStart)
                cursor = batch.cursor
                guard let slots, let end, let at = cursor.dateSent else { return }
                recent.append(at)
                if recent.count > Self.paceWindow { recent.removeFirst() }
                guard let parts = Self.parts(recent: recent, end: end, slots: slots) else { return }
                throw GoOnInParts(cursor: cursor, at: at, parts: parts, end: end, slots: slots)
            }
            return cursor
        } catch let split as GoOnInParts {
            let final = try await walkParts(
                target, from: split.cursor, at: split.at, parts: split.parts, end: split.end, below: below,
                slots: split.slots, runStart: runStart)
            if savesCursor { try await store([], [], of: target, cursor: final, at: runStart) }
            return final
        }
    }

    /// How many parts the rest of a walk should go on in, its last pages having ended at the seconds `recent`,
    /// with `end` (exclusive) ahead; `nil` to go on as one. Borrows the slots of the parts but one.
    static func parts(recent: [Int], end: Int, slots: WalkSlots) -> Int? {
        guard recent.count >= 3, let first = recent.first, let at = recent.last, end - at >= 2, slots.anyFree else {
            return nil
        }
        // Pages past the first of the window, over the seconds they took (at least one).
        let ahead = (recent.count - 1) * (end - at) / max(1, at - first)
        let wanted = min(ahead / pagesPerPart, end - at)
        guard wanted >= 2 else { return nil }
        let borrowed = slots.borrow(upTo: wanted - 1)
        return borrowed > 0 ? borrowed + 1 : nil
    }

    /// Walks `parts` parts of the seconds from `cursor`'s (`at`) up to `end` (the last part up to `below`) at once, and
    /// returns the cursor the last part ended at. The first part goes on from `cursor` in this walk's slot;
    /// each other part holds a borrowed slot, and gives it back when it ends.
    private func walkParts(
        _ target: Target, from cursor: CrawlCursor, at: Int, parts: Int, end: Int, below: Int?, slots: WalkSlots,
        runStart: Int
    ) async throws -> CrawlCursor {
        let bounds = (1..<parts).map { at + (end - at) * $0 / parts }
        var ranges: [(from: CrawlCursor, below: Int?)] = [(cursor, bounds[0])]
        for (index, bound) in bounds.enumerated() {
            let next = index + 1 < bounds.count ? bounds[index + 1] : below
            ranges.append((CrawlCursor(dateSent: bound, checkedUpdatedAt: cursor.checkedUpdatedAt), next))
        }
        events(.dialogParts(id: target.dialog.id, parts: parts, from: at))
        var final = cursor
        try await withThrowingTaskGroup(of: (Int, CrawlCursor).self) { group in
            for (index, range) in ranges.enumerated() {
                group.addTask {
                    defer { if index > 0 { slots.give() } }
                    let ended = try await walkRange(
                        target, from: range.from, below: range.below, savesCursor: false, slots: slots,
                        runStart: runStart)
                    return (index, ended)
                }
            }
            for try await (index, ended) in group where index == ranges.count - 1 {
                final = ended
            }
        }
        return final
    }
}
