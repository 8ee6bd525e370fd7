import QuickBlox

extension EmulatorStore {
    // MARK: Dialogs

    /// `POST /chat/Dialog.json`. A private dialog with the same two occupants is returned, not duplicated.
    func createDialog(_ parameters: RequestParameters, by user: Int, now: Int) throws(EmulatorError) -> Dialog {
        let typeValue = parameters.value("type")?.lenientInt ?? 2
        guard (1...3).contains(typeValue) else { throw EmulatorError.validation("type", "is not included in the list") }
        let type = DialogType(rawValue: typeValue)
        var occupants = Set(parameters.value("occupants_ids")?.lenientIntArray ?? [])
        for id in occupants where state.users[id] == nil {
            throw EmulatorError.validation("occupants_ids", "contains unknown user \(id)")
        }
        occupants.insert(user)
        if type == .private {
            guard occupants.count == 2 else {
                throw EmulatorError.validation("occupants_ids", "must name one other user")
            }
            if let existing = state.dialogs.values.first(where: {
                $0.dialog.type == .private && Set($0.dialog.occupantIDs) == occupants
            }) {
                return state.presented(existing, for: user)
            }
        }
        if type != .private, (parameters.string("name") ?? "").isEmpty {
            throw EmulatorError.validation("name", "can't be blank")
        }
        let id = ids.make(timestamp: now)
        let dialog = Dialog(
            id: id, type: type, name: parameters.string("name"), photo: parameters.string("photo"), userID: user,
            occupantIDs: type == .publicGroup ? [] : occupants.sorted(), adminIDs: type == .private ? nil : [user],
            createdAt: now, updatedAt: now,
            xmppRoomJID: type == .private ? nil : "\(configuration.applicationID)_\(id)@muc.chat.quickblox.com",
            data: parameters.value("data"))
        state.dialogs[id] = .init(dialog: dialog)
        state.messages[id] = MessageList(dialogID: id)
        return state.presented(state.dialogs[id]!, for: user)
    }

    /// `PUT /chat/Dialog/{id}.json`: `name`, `photo`, `push_all[occupants_ids]`, `pull_all[occupants_ids]`.
    func updateDialog(id: String, _ parameters: RequestParameters, by user: Int, now: Int) throws(EmulatorError)
        -> Dialog
    {
        guard var stored = state.dialogs[id] else { throw EmulatorError.notFound }
        guard stored.dialog.occupantIDs.contains(user) || stored.dialog.userID == user else {
            throw EmulatorError.forbidden
        }
        if let name = parameters.string("name") { stored.dialog.name = name }
        if let photo = parameters.string("photo") { stored.dialog.photo = photo }
        let pushed = parameters.value("push_all")?["occupants_ids"]?.lenientIntArray ?? []
        let pulled = parameters.value("pull_all")?["occupants_ids"]?.lenientIntArray ?? []
        if !pushed.isEmpty || !pulled.isEmpty {
            guard stored.dialog.type != .private else { throw EmulatorError.forbidden }
            var occupants = Set(stored.dialog.occupantIDs)
            occupants.formUnion(pushed.filter { state.users[$0] != nil })
            occupants.subtract(pulled)
            stored.dialog.occupantIDs = occupants.sorted()
        }
        stored.dialog.updatedAt = now
        state.dialogs[id] = stored
        return state.presented(stored, for: user)
    }

    /// `DELETE /chat/Dialog/{ids}.json` (QuickBlox reference §8, docs/emulator.md).
    ///
    /// Without `force` each dialog leaves `user`'s own list only; everyone else keeps it. With `force`
    /// the dialog's owner (`user_id`) deletes it for everyone; anyone else gets 403 WrongPermissions and
    /// nothing changes. `user == nil` (an API key without `On-Behalf-Of`) deletes for everyone. Ids that do
    /// not exist, or that `user` does not see, are answered in `NotFound`.
    func deleteDialogs(ids: [String], by user: Int?, force: Bool, now: Int) throws(EmulatorError) -> DeleteOutcome {
        var outcome = DeleteOutcome()
        for id in Self.distinct(ids) {
            guard let stored = state.dialogs[id], user.map({ state.canSee(stored, user: $0) }) ?? true else {
                outcome.notFound.append(id)
                continue
            }
            if force, let user, stored.dialog.userID != user { throw EmulatorError.wrongPermissions }
            outcome.deleted.append(id)
        }
        for id in outcome.deleted {
            if force || user == nil {
                removeDialog(id: id, now: now)
            } else if let user {
                state.dialogs[id]?.hiddenFor[user] = now
            }
        }
        return outcome
    }

    /// Ids once each, in the order given.
    static func distinct(_ ids: [String]) -> [String] {
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    func removeDialog(id: String, now: Int) {
        guard let stored = state.dialogs.removeValue(forKey: id) else { return }
        for message in state.messages.removeValue(forKey: id) ?? MessageList(dialogID: id) {
            state.hiddenMessages[message.id] = nil
        }
        state.deletions.append(
            .init(kind: "dialog", id: id, record: stored.dialog.json, deletedAt: now, hiddenFor: stored.hiddenFor))
    }

    // MARK: Messages

    /// `POST /chat/Message.json`: unknown top-level parameters become custom parameters.
    func createMessage(_ parameters: RequestParameters, by user: Int, now: Int) throws(EmulatorError) -> Message {
        guard let dialogID = parameters.string("chat_dialog_id"), var stored = state.dialogs[dialogID] else {
            throw EmulatorError.notFound
        }
        guard stored.dialog.type == .publicGroup || stored.dialog.occupantIDs.contains(user) else {
            throw EmulatorError.forbidden
        }
        var attachments: [Attachment] = []
        for element in parameters.value("attachments")?.arrayValue ?? [] {
            guard let attachment = try? Attachment(json: element) else {
                throw EmulatorError.validation("attachments", "must be objects")
            }
            attachments.append(attachment)
        }
        let known: Set<String> = [
            "chat_dialog_id", "message", "recipient_id", "attachments", "send_to_chat", "markable", "token",
            "date_sent",
        ]
        var extra: [String: JSONValue] = [:]
        for (key, value) in parameters.object where !known.contains(key) { extra[key] = value }
        let sent = parameters.value("date_sent")?.lenientInt ?? now
        let recipient =
            stored.dialog.type == .private
            ? stored.dialog.occupantIDs.first { $0 != user } : parameters.value("recipient_id")?.lenientInt ?? 0
        let message = Message(
            id: ids.make(timestamp: sent), chatDialogID: dialogID, text: parameters.string("message"), dateSent: sent,
            senderID: user, recipientID: recipient, attachments: attachments, readIDs: [user], deliveredIDs: [user],
            createdAt: now, updatedAt: now, read: 0, extra: extra)
        state.insert(message)
        state.blobs.register(message, policy: blobPolicy, seeded: false)
        stored = state.dialogs[dialogID]!
        stored.dialog.updatedAt = now
        state.dialogs[dialogID] = stored
        return message
    }

    /// `PUT /chat/Message/{id}.json`: the sender edits the text (an edit is recorded as a revision);
    /// `read=1` / `delivered=1` mark it for the caller.
    func updateMessage(id: String, _ parameters: RequestParameters, by user: Int, now: Int) throws(EmulatorError) {
        guard let (dialogID, index) = state.location(ofMessage: id) else { throw EmulatorError.notFound }
        var message = state.messages[dialogID]![index]
        if let text = parameters.string("message") {
            guard message.senderID == user else { throw EmulatorError.forbidden }
            if text != message.text { edit(&message, text: text, now: now) }
        }
        if parameters.string("read") == "1" {
            state.messages[dialogID]![index] = message
            markRead(dialogID: dialogID, indices: [index], by: user, now: now)
            return
        }
        if parameters.string("delivered") == "1", !message.deliveredIDs.contains(user) {
            message.deliveredIDs.append(user)
            message.updatedAt = now
        }
        state.messages[dialogID]![index] = message
    }

    /// Replaces a message's text, keeping the old version as a revision.
    func edit(_ message: inout Message, text: String, now: Int) {
        state.revisions.append(.init(message: message, supersededAt: now))
        message.text = text
        message.updatedAt = now
    }

    /// `DELETE /chat/Message/{ids}.json` (QuickBlox reference §8, docs/emulator.md).
    ///
    /// Without `force` the messages disappear for `user` only; every other occupant still lists them.
    /// With `force` they are deleted for everyone, which only their owner may do — the message's sender
    /// or the dialog's owner (the reference names both); anyone else gets 403 WrongPermissions and nothing
    /// changes. `user == nil` (an API key without `On-Behalf-Of`) deletes for everyone. Ids that do not
    /// exist, or that `user` does not see, are answered in `NotFound`.
    func deleteMessages(ids: [String], by user: Int?, force: Bool, now: Int) throws(EmulatorError) -> DeleteOutcome {
        var outcome = DeleteOutcome()
        for id in Self.distinct(ids) {
            guard let (dialogID, index) = state.location(ofMessage: id), let stored = state.dialogs[dialogID] else {
                outcome.notFound.append(id)
                continue
            }
            let message = state.messages[dialogID]![index]
            if let user, !state.canSee(stored, user: user) || !state.isVisible(message, to: user) {
                outcome.notFound.append(id)
                continue
            }
            if force, let user, message.senderID != user, stored.dialog.userID != user {
                throw EmulatorError.wrongPermissions
            }
            outcome.deleted.append(id)
        }
        for id in outcome.deleted {
            guard let (dialogID, index) = state.location(ofMessage: id) else { continue }
            if force || user == nil {
                removeMessage(dialogID: dialogID, index: index, now: now)
            } else if let user {
                hideMessage(dialogID: dialogID, index: index, for: user, now: now)
            }
        }
        return outcome
    }

    /// Removes a message from one user's view: it no longer counts as unread for them.
    func hideMessage(dialogID: String, index: Int, for user: Int, now: Int) {
        let message = state.messages[dialogID]![index]
        state.hiddenMessages[message.id, default: [:]][user] = now
        if message.senderID != user, !message.readIDs.contains(user), var stored = state.dialogs[dialogID] {
            stored.unread[user] = max(0, (stored.unread[user] ?? 0) - 1)
            state.dialogs[dialogID] = stored
        }
    }

    func removeMessage(dialogID: String, index: Int, now: Int) {
        let message = state.messages[dialogID]!.remove(at: index)
        let hidden = state.hiddenMessages.removeValue(forKey: message.id) ?? [:]
        if var stored = state.dialogs[dialogID] {
            for occupant in stored.dialog.occupantIDs
            where occupant != message.senderID && !message.readIDs.contains(occupant) && hidden[occupant] == nil {
                stored.unread[occupant] = max(0, (stored.unread[occupant] ?? 0) - 1)
            }
            state.dialogs[dialogID] = stored
        }
        state.deletions.append(.init(kind: "message", id: message.id, record: message.json, deletedAt: now))
    }
}

/// What a `DELETE` of several ids came to: `{"SuccessfullyDeleted":{"ids":[…]},"NotFound":{"ids":[…]}}`.
struct DeleteOutcome: Sendable, Equatable {
    var deleted: [String] = []
    var notFound: [String] = []

    var json: JSONValue {
        [
            "SuccessfullyDeleted": ["ids": .array(deleted.map(JSONValue.string))],
            "NotFound": ["ids": .array(notFound.map(JSONValue.string))],
        ]
    }
}
