import Foundation
import QuickBlox

/// Generates the seeded data set: users, dialogs of every type, and a long-tailed spread of messages.
///
/// Deterministic for a given configuration. Realistic rather than uniform: most dialogs are
/// private and small, some are empty, a few hold most messages; the largest dialog holds a burst
/// of more than `maxLimit` messages in one second; text mixes scripts, emoji, links and
/// punctuation; some messages carry attachments, custom parameters or an earlier edited version.
struct DataGenerator {
    let configuration: EmulatorConfiguration
    var random: SeededRandom
    var ids: ObjectIDGenerator
    /// Texts of one or two fragments, each kept once: a million messages share a few thousand strings
    /// instead of holding a copy each (the emulator's memory, docs/performance.md).
    private var texts: [String: String] = [:]

    init(configuration: EmulatorConfiguration) {
        self.configuration = configuration
        random = SeededRandom(seed: configuration.seed, stream: 1)
        ids = ObjectIDGenerator(random: SeededRandom(seed: configuration.seed, stream: 2))
    }

    /// User `n` (1-based) has id `100000 + n`, login `userN` and password `passwordN`.
    static func userID(_ n: Int) -> Int { 100_000 + n }

    mutating func generate() -> EmulatorState {
        var state = EmulatorState()
        let epoch = configuration.epoch
        let userCount = max(2, configuration.users)
        for n in 1...userCount {
            let created = epoch - 2 * 365 * 86_400 + Int.random(in: 0..<(365 * 86_400), using: &random)
            let login = "user\(n)"
            var extra: [String: JSONValue] = [
                "website": .null, "external_user_id": .null, "facebook_id": .null, "blob_id": .null,
            ]
            if random.chance(0.2) { extra["website"] = .string("https://example.com/~\(login)") }
            let user = User(
                id: Self.userID(n), login: login, email: "\(login)@example.test",
                fullName: n == 1 ? "Support Desk" : Self.fullNames[(n - 2) % Self.fullNames.count],
                phone: random.chance(0.3) ? "+1555\(1_000_000 + n)" : nil, createdAt: created, updatedAt: created,
                lastRequestAt: epoch - Int.random(in: 0..<(30 * 86_400), using: &random),
                customData: random.chance(0.1) ? "{\"role\":\"moderator\"}" : nil,
                userTags: random.chance(0.3) ? random.pick(["beta", "android", "ios,beta", "web"]) : nil, extra: extra)
            state.users[user.id] = .init(user: user, password: EmulatorConfiguration.password(forLogin: login))
        }
        let userIDs = state.sortedUserIDs
        let dialogCount = max(0, configuration.dialogs)
        var dialogs: [Dialog] = []
        for index in 0..<dialogCount {
            dialogs.append(makeDialog(index: index, users: userIDs, epoch: epoch))
        }
        let counts = messageCounts(dialogs: dialogCount, total: max(0, configuration.messages))
        for (dialog, count) in zip(dialogs, counts) {
            fill(dialog, count: count, users: userIDs, epoch: epoch, into: &state)
        }
        return state
    }

    private mutating func makeDialog(index: Int, users: [Int], epoch: Int) -> Dialog {
        let created = epoch - 365 * 86_400 + Int.random(in: 0..<(335 * 86_400), using: &random)
        let id = ids.make(timestamp: created)
        let roll = Double.random(in: 0..<1, using: &random)
        let type: DialogType = roll < 0.1 ? .publicGroup : roll < 0.4 ? .group : .private
        var occupants: [Int] = []
        // The support account (user1) sits in a quarter of all conversations, like a help desk.
        if type != .publicGroup, random.chance(0.25) { occupants.append(users[0]) }
        let wanted =
            type == .private ? 2 : type == .group ? Int.random(in: 3...max(3, min(20, users.count)), using: &random) : 0
        while occupants.count < min(wanted, users.count) {
            let candidate = random.pick(users)
            if !occupants.contains(candidate) { occupants.append(candidate) }
        }
        let owner = occupants.first ?? random.pick(users)
        var name: String?
        switch type {
        case .private: name = random.chance(0.5) ? "Chat \(occupants[1] - 100_000)" : nil
        case .group: name = "\(random.pick(Self.groupNames)) #\(index)"
        default: name = "\(random.pick(Self.publicNames)) #\(index)"
        }
        var data: JSONValue?
        if type == .group, random.chance(0.15) {
            data = ["class_name": "GroupInfo", "category": .string(random.pick(["friends", "work", "school"]))]
        }
        return Dialog(
            id: id, type: type, name: name,
            photo: random.chance(0.1) ? String(Int.random(in: 10_000...99_999, using: &random)) : nil,
            userID: owner, occupantIDs: occupants.sorted(), adminIDs: type == .group ? [owner] : nil,
            createdAt: created, updatedAt: created, unreadMessagesCount: 0,
            xmppRoomJID: type == .private ? nil : "\(configuration.applicationID)_\(id)@muc.chat.quickblox.com",
            data: data)
    }

    /// Zipf-like sizes over a shuffled order, with about 5% of dialogs left empty.
    private mutating func messageCounts(dialogs: Int, total: Int) -> [Int] {
        guard dialogs > 0 else { return [] }
        var ranks = Array(1...dialogs)
        ranks.shuffle(using: &random)
        var weights = ranks.map { 1 / pow(Double($0), 1.07) }
        for index in weights.indices where random.chance(0.05) && ranks[index] > 1 { weights[index] = 0 }
        let sum = weights.reduce(0, +)
        var counts = weights.map { Int((Double(total) * $0 / sum).rounded(.down)) }
        var remainder = total - counts.reduce(0, +)
        let order = weights.indices.sorted { weights[$0] > weights[$1] }
        var cursor = 0
        while remainder > 0 {
            counts[order[cursor % order.count]] += 1
            remainder -= 1
            cursor += 1
        }
        return counts
    }

    private mutating func fill(
        _ template: Dialog, count: Int, users: [Int], epoch: Int, into state: inout EmulatorState
    ) {
        var dialog = template
        let start = (dialog.createdAt ?? epoch) + 60
        let span = Double(max(1, epoch - 60 - start))
        let meanGap = span / Double(count + 1)
        let burstAt = count >= 3 * configuration.maxLimit ? Int.random(in: 0..<(count / 2), using: &random) : -1
        let burstLength = configuration.maxLimit + 37
        let senders = dialog.occupantIDs.isEmpty ? users : dialog.occupantIDs
        var readUpTo: [Int: Int] = [:]
        var deliveredUpTo: [Int: Int] = [:]
        for occupant in dialog.occupantIDs {
            let read = Int(Double(count) * Double.random(in: 0.5...1, using: &random))
            readUpTo[occupant] = read
            deliveredUpTo[occupant] = min(count, read + Int.random(in: 0...3, using: &random))
        }
        // Exponential gaps (many same-second ties), zero inside the burst, scaled to end before the epoch.
        var gaps = (0..<count).map { index -> Double in
            let inBurst = burstAt >= 0 && index > burstAt && index < burstAt + burstLength
            return inBurst ? 0 : -log(Double.random(in: Double.ulpOfOne..<1, using: &random)) * meanGap
        }
        // Conversations go quiet at different times: the last message lands somewhere in the second half.
        let totalGap = gaps.reduce(0, +)
        let quietAfter = span * Double.random(in: 0.5...1, using: &random)
        if totalGap > quietAfter { gaps = gaps.map { $0 * quietAfter / totalGap } }
        var time = Double(start)
        // Receipt lists repeat within a dialog: each distinct list is kept once and shared.
        var receipts: [[Int]: [Int]] = [:]
        func shared(_ ids: [Int]) -> [Int] {
            if let known = receipts[ids] { return known }
            receipts[ids] = ids
            return ids
        }
        var list: [Message] = []
        list.reserveCapacity(count)
        for index in 0..<count {
            time += gaps[index]
            let sent = min(Int(time), epoch - 1)
            let sender = random.pick(senders)
            var message = Message(
                id: ids.make(timestamp: sent), chatDialogID: dialog.id, text: makeText(), dateSent: sent,
                senderID: sender, recipientID: recipient(dialog, sender: sender), createdAt: sent, updatedAt: sent,
                read: 0)
            if random.chance(0.08) { message.attachments = [makeAttachment()] }
            if !message.attachments.isEmpty, random.chance(0.3) { message.text = "[attachment]" }
            if random.chance(0.1) { message.extra = makeCustomParameters(dialog: dialog.id) }
            let readers = dialog.occupantIDs.filter { $0 != sender && index < readUpTo[$0, default: 0] }
            let receivers = dialog.occupantIDs.filter { $0 != sender && index < deliveredUpTo[$0, default: 0] }
            message.readIDs = shared(([sender] + readers).sorted())
            message.deliveredIDs = shared(Array(Set([sender] + receivers)).sorted())
            if random.chance(0.02) {
                var earlier = message
                earlier.text = makeText()
                let edited = min(epoch - 1, sent + Int.random(in: 5...3600, using: &random))
                message.updatedAt = edited
                state.revisions.append(.init(message: earlier, supersededAt: edited))
            }
            list.append(message)
        }
        list.sort { ($0.dateSent, $0.id) < ($1.dateSent, $1.id) }
        var stored = EmulatorState.StoredDialog(dialog: dialog)
        for occupant in dialog.occupantIDs {
            stored.unread[occupant] =
                list.indices.filter { $0 >= readUpTo[occupant, default: 0] && list[$0].senderID != occupant }.count
        }
        if let last = list.last { dialog.updatedAt = max(dialog.updatedAt ?? 0, last.dateSent) }
        stored.dialog = dialog
        state.messages[dialog.id] = MessageList(dialogID: dialog.id, sorted: list)
        state.dialogs[dialog.id] = stored
    }

    private func recipient(_ dialog: Dialog, sender: Int) -> Int? {
        if dialog.type == .private { return dialog.occupantIDs.first { $0 != sender } ?? 0 }
        // Group messages carry 0 per the docs; some servers have sent null.
        return dialog.id.hasSuffix("7") ? nil : 0
    }

    mutating func makeText() -> String {
        var parts = [random.pick(Self.fragments)]
        if random.chance(0.35) { parts.append(random.pick(Self.fragments)) }
        if random.chance(0.005) {
            // An occasional wall of text.
            parts += (0..<20).map { _ in random.pick(Self.fragments) }
            return parts.joined(separator: " ")
        }
        if parts.count == 1 { return parts[0] }
        let text = parts.joined(separator: " ")
        if let known = texts[text] { return known }
        texts[text] = text
        return text
    }

    mutating func makeAttachment() -> Attachment {
        let kind = random.pick(Self.attachmentKinds)
        let uid = ids.make(timestamp: Int(random.next() & 0xFFFF_FFFF)) + "a5f3c9d2"
        if kind.type == "location" {
            return Attachment(
                type: "location", extra: ["data": .string("{\"lat\":52.52,\"lng\":13.405}")])
        }
        var attachment = Attachment(
            type: kind.type, id: String(Int.random(in: 10_000...9_999_999, using: &random)), uid: uid,
            name: "\(kind.type)_\(uid.prefix(6)).\(kind.ext)", size: Int.random(in: kind.size, using: &random),
            extra: ["content-type": .string(kind.contentType)])
        if random.chance(0.2) { attachment.url = "https://files.example.com/blobs/\(uid)" }
        // Decided by a hash of the uid, not the generator, so the rate changes no other data.
        if BlobContent.isLarge(seed: configuration.seed, uid: uid, rate: configuration.largeFileRate) {
            attachment.size = BlobContent.largeSize(seed: configuration.seed, uid: uid)
        }
        return attachment
    }

    mutating func makeCustomParameters(dialog: String) -> [String: JSONValue] {
        switch Int.random(in: 0..<4, using: &random) {
        case 0: ["age": .string(String(Int.random(in: 16...70, using: &random)))]
        case 1: ["dialog_id": .string(dialog)]
        case 2: ["priority": "high", "client_msg_id": .string(ids.make(timestamp: 0))]
        default: ["save_to_history": "1", "notification_type": "2"]
        }
    }
}
