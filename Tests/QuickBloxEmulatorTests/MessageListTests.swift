import QuickBlox
import Testing

@testable import QuickBloxEmulator

/// The emulator's compact message storage against the plain `[Message]` it replaced: whatever is stored reads
/// back as it was written, in the same order, and is found where a sorted array would find it.
@Suite("Compact message lists")
struct MessageListTests {
    /// Ids of every shape a fixture may bring: ObjectIds whose time is the message's `date_sent` (as the
    /// emulator makes them) or another, and texts that must stay text (capitals, other lengths, non-hex).
    private static func makeID(_ random: inout SeededRandom, dateSent: Int) -> String {
        let tail = String(random.next(), radix: 16).leftPadded(to: 16)
        switch Int(random.next() % 8) {
        case 0: return "M-\(random.next() % 1000)"
        case 1: return (String(UInt32(truncatingIfNeeded: dateSent), radix: 16).leftPadded(to: 8) + tail).uppercased()
        case 2: return String(random.next() % 0xFFFF_FFFF, radix: 16).leftPadded(to: 8) + tail
        case 3: return "g" + String(tail.prefix(15)) + "00000000"
        case 4: return String(random.next() % 0xFFFF_FFFF, radix: 16).leftPadded(to: 8) + tail + "0"
        default: return String(UInt32(truncatingIfNeeded: dateSent), radix: 16).leftPadded(to: 8) + tail
        }
    }

    private static func makeMessage(
        _ random: inout SeededRandom, dialog: String, dateSent: Int? = nil, id: String? = nil
    )
        -> Message
    {
        let sent = dateSent ?? 1_700_000_000 + Int(random.next() % 40)
        return Message(
            id: id ?? makeID(&random, dateSent: sent), chatDialogID: dialog,
            text: random.chance(0.2) ? nil : random.pick(["hi", "a longer text than fifteen bytes", "ß 你好"]),
            dateSent: sent, senderID: random.chance(0.1) ? nil : Int(random.next() % 5) + 100_001,
            recipientID: random.chance(0.3) ? nil : Int(random.next() % 2),
            attachments: random.chance(0.2) ? [Attachment(type: "image", uid: "u\(random.next() % 9)")] : [],
            readIDs: random.chance(0.5) ? [100_001] : [], deliveredIDs: random.chance(0.5) ? [100_001, 100_002] : [],
            createdAt: random.chance(0.1) ? nil : sent, updatedAt: random.chance(0.1) ? nil : sent + 5,
            read: random.chance(0.3) ? nil : Int(random.next() % 3) - 1,
            extra: random.chance(0.2) ? ["priority": "high"] : [:])
    }

    /// The order the emulator has always kept: `(date_sent, _id)`, ids compared as text.
    private static func referenceLowerBound(_ list: [Message], dateSent: Int, id: String) -> Int {
        list.firstIndex { ($0.dateSent, $0.id) >= (dateSent, id) } ?? list.count
    }

    @Test("Random inserts, edits and removals read back as a sorted [Message] does", arguments: 1...12)
    func matchesArray(seed: UInt64) {
        var random = SeededRandom(seed: seed, stream: 9)
        let dialog = "5f0000000000000000000001"
        var list = MessageList(dialogID: dialog)
        var reference: [Message] = []
        for _ in 0..<300 {
            switch random.next() % 10 {
            case 0..<6:
                var message = Self.makeMessage(&random, dialog: dialog)
                while reference.contains(where: { $0.id == message.id }) {
                    message = Self.makeMessage(&random, dialog: dialog)
                }
                let index = list.lowerBound(dateSent: message.dateSent, id: message.id)
                #expect(index == Self.referenceLowerBound(reference, dateSent: message.dateSent, id: message.id))
                list.insert(message, at: index)
                reference.insert(message, at: index)
            case 6..<8 where !reference.isEmpty:
                let index = Int(random.next() % UInt64(reference.count))
                let old = reference[index]
                let edited = Self.makeMessage(&random, dialog: dialog, dateSent: old.dateSent, id: old.id)
                list[index] = edited
                reference[index] = edited
            case 8..<10 where !reference.isEmpty:
                let index = Int(random.next() % UInt64(reference.count))
                #expect(list.remove(at: index) == reference.remove(at: index))
            default: continue
            }
            #expect(Array(list) == reference)
        }
        for message in reference {
            let expected = reference.firstIndex(of: message)
            #expect(list.index(ofID: message.id) == expected)
            #expect(list.index(ofID: message.id, sentAt: message.dateSent) == expected)
            #expect(list.index(ofID: message.id, sentAt: message.dateSent + 1) == nil)
            #expect(
                list.lowerBound(dateSent: message.dateSent)
                    == Self.referenceLowerBound(
                        reference, dateSent: message.dateSent, id: ""))
        }
        #expect(list.index(ofID: "5f00000000000000000000ff") == nil)
        #expect(list.index(ofID: "not there") == nil)
    }

    @Test("A message is found by its id in any dialog, whether or not its ObjectId carries its date_sent")
    func locationByID() {
        var random = SeededRandom(seed: 7, stream: 1)
        var state = EmulatorState()
        let dialogs = (1...5).map { "5f00000000000000000000a\($0)" }
        var stored: [Message] = []
        for _ in 0..<400 {
            let message = Self.makeMessage(&random, dialog: random.pick(dialogs))
            guard !stored.contains(where: { $0.id == message.id }) else { continue }
            state.insert(message)
            stored.append(message)
        }
        for message in stored {
            let found = state.location(ofMessage: message.id)
            #expect(found?.dialog == message.chatDialogID)
            #expect(found.map { state.messages[$0.dialog]![$0.index] } == message)
        }
        #expect(state.location(ofMessage: "5f00000000000000000000ff") == nil)
        #expect(state.messageCount == stored.count)
    }

    @Test("A packed ObjectId reads back as its hex, sorts as its hex, and only lowercase 24-hex ids pack")
    func packedIDs() {
        var random = SeededRandom(seed: 3, stream: 2)
        var pairs: [(String, PackedObjectID)] = []
        for _ in 0..<200 {
            let hex =
                String(random.next() % 0xFFFF_FFFF, radix: 16).leftPadded(to: 8)
                + String(random.next(), radix: 16).leftPadded(to: 16)
            let packed = PackedObjectID(hex: hex)
            #expect(packed?.hex == hex)
            if let packed { pairs.append((hex, packed)) }
        }
        for (a, b) in zip(pairs, pairs.dropFirst()) { #expect((a.0 < b.0) == (a.1 < b.1)) }
        for text in [
            "", "5F0000000000000000000001", "5f000000000000000000001", "5f00000000000000000000010",
            "5f00000000000000000000g1",
        ] {
            #expect(PackedObjectID(hex: text) == nil, "\(text)")
        }
    }

    @Test("A row stays at 112 bytes: the figure docs/performance.md's emulator memory rests on")
    func rowSize() {
        #expect(MemoryLayout<MessageList.Row>.stride == 112)
        #expect(MemoryLayout<PackedObjectID>.size == 13)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
