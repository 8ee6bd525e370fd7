import QuickBlox

extension EmulatorStore {
    /// The outcome of a list request: a page, or the count asked for with `count=1`.
    enum ListResult<Item: Sendable>: Sendable {
        case items([Item], total: Int?)
        case count(Int)
    }

    // MARK: Dialogs

    /// Dialogs `user` can see: those it occupies, and every public dialog, less those it removed for itself.
    ///
    /// Only the user's own dialogs are looked at (``DialogReaderIndex``); each one's sort key is computed once,
    /// not in every comparison; and unless a filter or the order reads a field that depends on the dialog's
    /// messages or on who asks (``presentedFields``), only the page's dialogs are presented. A crawler pages
    /// every user's list by `created_at`: presenting every visible dialog for each page made paging a list of
    /// 1,200 dialogs cost 1,200 × 12 last messages.
    func listDialogs(for user: Int, query: ListQuery) -> ListResult<Dialog> {
        let index = state.readerIndex ?? DialogReaderIndex(state.dialogs)
        state.readerIndex = index
        // Default order: most recent conversation first, as the SDKs show dialogs.
        let (field, ascending) = query.sort ?? ("last_message_date_sent", false)
        let fields = [field] + (query.filters.conditions + query.filters.alternatives).map(\.field)
        let presentEach = fields.contains(where: Self.presentedFields.contains)
        var visible: [Dialog] = []
        var order: [(key: SortKey, id: String, slot: Int)] = []
        for id in index.candidates(for: user) {
            guard let stored = state.dialogs[id], state.canSee(stored, user: user) else { continue }
            let dialog = presentEach ? state.presented(stored, for: user) : stored.dialog
            guard query.filters.matches({ FieldValue.of(dialog, field: $0) }) else { continue }
            if !query.count { order.append((SortKey(FieldValue.of(dialog, field: field)), id, visible.count)) }
            visible.append(dialog)
        }
        if query.count { return .count(visible.count) }
        order.sort { a, b in
            if a.key != b.key { return ascending ? a.key < b.key : a.key > b.key }
            return a.id < b.id
        }
        let page = order.dropFirst(query.skip).prefix(query.limit).map { item in
            guard !presentEach, let stored = state.dialogs[item.id] else { return visible[item.slot] }
            return state.presented(stored, for: user)
        }
        return .items(Array(page), total: visible.count)
    }

    /// The dialog fields ``EmulatorState/presented(_:for:)`` fills in: they depend on the dialog's messages and
    /// on who asks.
    static let presentedFields: Set<String> = [
        "last_message", "last_message_date_sent", "last_message_id", "last_message_user_id", "unread_messages_count",
    ]

    /// One dialog as `user` sees it; 404 when unknown or not visible to them.
    func dialog(id: String, for user: Int) throws(EmulatorError) -> Dialog {
        guard let stored = state.dialogs[id], state.canSee(stored, user: user) else { throw EmulatorError.notFound }
        return state.presented(stored, for: user)
    }

    // MARK: Messages

    /// `GET /chat/Message.json`: 404 for an unknown dialog, 403 for a non-occupant of a private or
    /// group dialog. With `markAsRead` the returned messages become read and delivered for `user`
    /// and their `updated_at` moves, as on the real server. A dialog `user` removed for itself is not
    /// found (404); messages it removed for itself are not listed or counted.
    func listMessages(
        dialogID: String, for user: Int, query: ListQuery, markAsRead: Bool, now: Int
    ) throws(EmulatorError) -> ListResult<Message> {
        guard let stored = state.dialogs[dialogID], stored.hiddenFor[user] == nil else { throw EmulatorError.notFound }
        guard stored.dialog.type == .publicGroup || stored.dialog.occupantIDs.contains(user) else {
            throw EmulatorError.forbidden
        }
        let list = state.messages[dialogID] ?? MessageList(dialogID: dialogID)
        let hidden = state.hiddenMessages
        let matches: (Message) -> Bool = { message in
            (hidden.isEmpty || hidden[message.id]?[user] == nil)
                && query.filters.matches { FieldValue.of(message, field: $0) }
        }
        let (low, high) = Self.dateRange(of: query.filters, in: list)

        if query.count {
            if Self.isDateRangeOnly(query.filters) {
                // The range is the answer, less the messages `user` removed for themselves; no message is made
                // (the crawler asks `count=1` of dialogs of 150,000 messages).
                if hidden.isEmpty { return .count(high - low) }
                return .count((low..<high).reduce(0) { $0 + (hidden[list.id(at: $1)]?[user] == nil ? 1 : 0) })
            }
            return .count(list[low..<high].reduce(0) { $0 + (matches($1) ? 1 : 0) })
        }

        // Each message is made once from the list's compact rows (``MessageList``) and kept with its index.
        var picked: [(index: Int, message: Message)] = []
        let sortField = query.sort?.field ?? "date_sent"
        if sortField == "date_sent" {
            // Index order: O(log n + skip + limit) for the paging a crawler does.
            let ascending = query.sort?.ascending ?? true
            var skipped = 0
            let indices: AnySequence<Int> = ascending ? AnySequence(low..<high) : AnySequence((low..<high).reversed())
            for index in indices {
                let message = list[index]
                guard matches(message) else { continue }
                if skipped < query.skip {
                    skipped += 1
                    continue
                }
                picked.append((index, message))
                if picked.count == query.limit { break }
            }
        } else {
            let ascending = query.sort?.ascending ?? true
            var all: [(index: Int, message: Message, key: SortKey)] = []
            for index in low..<high {
                let message = list[index]
                if matches(message) { all.append((index, message, SortKey(FieldValue.of(message, field: sortField)))) }
            }
            all.sort { a, b in
                if a.key != b.key { return ascending ? a.key < b.key : a.key > b.key }
                return a.index < b.index
            }
            picked = all.dropFirst(query.skip).prefix(query.limit).map { ($0.index, $0.message) }
        }
        guard markAsRead else { return .items(picked.map(\.message), total: nil) }
        markRead(dialogID: dialogID, indices: picked.map(\.index), by: user, now: now)
        let current = state.messages[dialogID] ?? list
        return .items(picked.map { current[$0.index] }, total: nil)
    }

    /// The index range a `date_sent` filter allows, found by binary search.
    static func dateRange(of filters: FilterSet, in list: MessageList) -> (Int, Int) {
        var low = 0
        var high = list.count
        for condition in filters.conditions where condition.field == "date_sent" && condition.isNumeric {
            guard let value = condition.ints.first else { continue }
            switch condition.op {
            case .greaterThanOrEqual: low = max(low, list.lowerBound(dateSent: value))
            case .greaterThan: low = max(low, list.lowerBound(dateSent: value + 1))
            case .lessThan: high = min(high, list.lowerBound(dateSent: value))
            case .lessThanOrEqual: high = min(high, list.lowerBound(dateSent: value + 1))
            case .equal:
                low = max(low, list.lowerBound(dateSent: value))
                high = min(high, list.lowerBound(dateSent: value + 1))
            default: break
            }
        }
        return (low, max(low, high))
    }

    /// Whether every filter is a `date_sent` bound that ``dateRange(of:in:)`` applies in full, so that the
    /// range holds exactly the messages the filters match.
    static func isDateRangeOnly(_ filters: FilterSet) -> Bool {
        filters.alternatives.isEmpty
            && filters.conditions.allSatisfy { condition in
                condition.field == "date_sent" && condition.isNumeric && !condition.ints.isEmpty
                    && [.greaterThanOrEqual, .greaterThan, .lessThan, .lessThanOrEqual, .equal].contains(condition.op)
            }
    }

    /// Marks messages read and delivered for `user`, bumping `updated_at` where that changed anything.
    func markRead(dialogID: String, indices: [Int], by user: Int, now: Int) {
        guard state.messages[dialogID] != nil, var stored = state.dialogs[dialogID] else { return }
        var changed = false
        for index in indices {
            var message = state.messages[dialogID]![index]
            guard !message.readIDs.contains(user) else { continue }
            message.readIDs.append(user)
            if !message.deliveredIDs.contains(user) { message.deliveredIDs.append(user) }
            message.updatedAt = now
            state.messages[dialogID]![index] = message
            changed = true
            if message.senderID != user, let unread = stored.unread[user], unread > 0 {
                stored.unread[user] = unread - 1
            }
        }
        guard changed else { return }
        state.dialogs[dialogID] = stored
    }
}

extension EmulatorStore {
    /// Unread counts for `user` in the given dialogs, or in all its dialogs when none are named.
    func unreadCounts(dialogIDs: [String], for user: Int) -> [String: Int] {
        let ids =
            dialogIDs.isEmpty
            ? state.dialogs.keys.filter { state.dialogs[$0]!.dialog.occupantIDs.contains(user) } : dialogIDs
        var counts: [String: Int] = [:]
        for id in ids {
            if let stored = state.dialogs[id] { counts[id] = stored.unread[user] ?? 0 }
        }
        return counts
    }
}
