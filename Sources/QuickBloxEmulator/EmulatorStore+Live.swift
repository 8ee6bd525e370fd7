import QuickBlox

extension EmulatorStore {
    /// One change of the kind a crawler meets in production, chosen by the seeded live generator:
    /// mostly new messages, then edits, deletions as QuickBlox makes them (a random occupant removing a
    /// message or a dialog for themselves, the owner deleting for everyone), occupant changes and new dialogs.
    ///
    /// - Returns: what was done (`message`, `edit`, `hide`, `delete`, `join`, `leave`, `hide-dialog`,
    ///   `delete-dialog`, `dialog`), or `nil` when there was nothing to act on.
    @discardableResult
    func applyLiveChange(now: Int) -> String? {
        var generator = liveGenerator
        defer { liveGenerator = generator }
        let roll = Double.random(in: 0..<1, using: &generator.random)
        let dialogIDs = state.dialogs.keys.sorted()
        guard !dialogIDs.isEmpty else { return nil }
        let dialogID = generator.random.pick(dialogIDs)
        guard let stored = state.dialogs[dialogID] else { return nil }
        let list = state.messages[dialogID] ?? MessageList(dialogID: dialogID)
        let users = state.sortedUserIDs

        switch roll {
        case ..<0.70:
            let senders = stored.dialog.occupantIDs.isEmpty ? users : stored.dialog.occupantIDs
            guard let sender = senders.isEmpty ? nil : generator.random.pick(senders) else { return nil }
            let sent = max(now, list.last?.dateSent ?? now)
            var message = Message(
                id: ids.make(timestamp: sent), chatDialogID: dialogID, text: generator.makeText(), dateSent: sent,
                senderID: sender,
                recipientID: stored.dialog.type == .private ? stored.dialog.occupantIDs.first { $0 != sender } : 0,
                readIDs: [sender], deliveredIDs: [sender], createdAt: now, updatedAt: now, read: 0)
            if generator.random.chance(0.08) { message.attachments = [generator.makeAttachment()] }
            state.insert(message)
            state.blobs.register(message, policy: blobPolicy, seeded: true)
            state.dialogs[dialogID]?.dialog.updatedAt = now
            return "message"
        case ..<0.85:
            guard !list.isEmpty else { return nil }
            let index = Int.random(in: 0..<list.count, using: &generator.random)
            var message = list[index]
            edit(&message, text: generator.makeText() + " (edited)", now: now)
            state.messages[dialogID]![index] = message
            return "edit"
        case ..<0.89:
            guard !list.isEmpty else { return nil }
            let index = Int.random(in: 0..<list.count, using: &generator.random)
            guard let readers = state.readers(of: list[index]), !readers.isEmpty else { return nil }
            hideMessage(dialogID: dialogID, index: index, for: generator.random.pick(readers), now: now)
            return "hide"
        case ..<0.93:
            guard !list.isEmpty else { return nil }
            removeMessage(dialogID: dialogID, index: Int.random(in: 0..<list.count, using: &generator.random), now: now)
            return "delete"
        case ..<0.955:
            guard stored.dialog.type == .group, let user = users.isEmpty ? nil : generator.random.pick(users),
                !stored.dialog.occupantIDs.contains(user)
            else { return nil }
            state.dialogs[dialogID]?.dialog.occupantIDs = (stored.dialog.occupantIDs + [user]).sorted()
            state.dialogs[dialogID]?.dialog.updatedAt = now
            return "join"
        case ..<0.98:
            guard stored.dialog.type == .group, stored.dialog.occupantIDs.count > 2 else { return nil }
            let leaving = generator.random.pick(stored.dialog.occupantIDs.filter { $0 != stored.dialog.userID })
            state.dialogs[dialogID]?.dialog.occupantIDs.removeAll { $0 == leaving }
            state.dialogs[dialogID]?.dialog.updatedAt = now
            return "leave"
        case ..<0.986:
            let readers = state.readers(of: stored)
            guard !readers.isEmpty else { return nil }
            state.dialogs[dialogID]?.hiddenFor[generator.random.pick(readers)] = now
            return "hide-dialog"
        case ..<0.99:
            // Rare: a whole conversation deleted for everyone by its owner.
            removeDialog(id: dialogID, now: now)
            return "delete-dialog"
        default:
            guard users.count >= 2 else { return nil }
            let owner = generator.random.pick(users)
            var other = generator.random.pick(users)
            while other == owner { other = generator.random.pick(users) }
            let id = ids.make(timestamp: now)
            let dialog = Dialog(
                id: id, type: .group, name: "Live group \(id.suffix(4))", userID: owner,
                occupantIDs: [owner, other].sorted(), adminIDs: [owner], createdAt: now, updatedAt: now,
                xmppRoomJID: "\(configuration.applicationID)_\(id)@muc.chat.quickblox.com")
            state.dialogs[id] = .init(dialog: dialog)
            state.messages[id] = MessageList(dialogID: id)
            return "dialog"
        }
    }
}
