import Foundation
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Seeded data")
struct SeedDataTests {
    struct Truth {
        var users: [User] = []
        var dialogs: [Dialog] = []
        var messages: [Message] = []
        var revisions = 0
    }

    static func truth(_ configure: (inout EmulatorConfiguration) -> Void) async throws -> Truth {
        let emulator = try Emulator(configuration: EmulatorHarness.configuration(configure))
        var truth = Truth()
        for line in await emulator.truthLines() {
            let json = try JSONValue(parsing: line)
            let record = try #require(json["record"])
            switch json["kind"]?.stringValue {
            case "user": truth.users.append(try User(json: record))
            case "dialog": truth.dialogs.append(try Dialog(json: record))
            case "message": truth.messages.append(try Message(json: record))
            case "revision": truth.revisions += 1
            default: break
            }
        }
        return truth
    }

    @Test("The same seed gives the same data; another seed does not")
    func deterministic() async throws {
        let a = try Emulator(configuration: EmulatorHarness.configuration())
        let b = try Emulator(configuration: EmulatorHarness.configuration())
        let c = try Emulator(configuration: EmulatorHarness.configuration { $0.seed = 8 })
        let first = await a.truthLines()
        #expect(await b.truthLines() == first)
        #expect(await c.truthLines() != first)
    }

    @Test("Exactly the requested numbers, with users following the documented login pattern")
    func counts() async throws {
        let truth = try await Self.truth { _ in }
        #expect(truth.users.count == 8)
        #expect(truth.dialogs.count == 20)
        #expect(truth.messages.count == 1500)
        #expect(truth.users.map(\.login) == (1...8).map { "user\($0)" })
        #expect(truth.users.map(\.id) == (1...8).map { 100_000 + $0 })
        #expect(EmulatorConfiguration.password(forLogin: "user12") == "password12")
    }

    @Test("Long-tailed: a few dialogs hold most messages, some are empty, all three types occur")
    func longTail() async throws {
        let truth = try await Self.truth {
            $0.users = 30
            $0.dialogs = 150
            $0.messages = 20_000
        }
        let sizes = Dictionary(grouping: truth.messages, by: \.chatDialogID).mapValues(\.count)
        let ordered = truth.dialogs.map { sizes[$0.id] ?? 0 }.sorted(by: >)
        #expect(ordered[0] > 20_000 / 10)
        #expect(ordered.prefix(10).reduce(0, +) > 20_000 / 3)
        #expect(ordered.filter { $0 == 0 }.count >= 5)
        #expect(ordered[ordered.count / 2] < 100)
        #expect(Set(truth.dialogs.map(\.type)) == [.publicGroup, .group, .private])
        let burst =
            Dictionary(grouping: truth.messages, by: { "\($0.chatDialogID) \($0.dateSent)" }).values.map(\.count).max()
            ?? 0
        #expect(burst > 100, "a burst of more than max-limit messages in one second")
        #expect(truth.dialogs.filter { $0.type == .publicGroup }.allSatisfy { $0.occupantIDs.isEmpty })
        #expect(
            truth.dialogs.filter { $0.type == .private }.allSatisfy {
                $0.occupantIDs.count == 2 && $0.xmppRoomJID == nil
            })
        #expect(truth.dialogs.contains { $0.data?["class_name"] == "GroupInfo" })
        #expect(truth.dialogs.contains { $0.lastMessage == nil && $0.lastMessageDateSent == nil })
    }

    @Test("Messages mix scripts, emoji, links and punctuation; carry attachments, custom keys, edits")
    func variety() async throws {
        let truth = try await Self.truth { $0.messages = 5000 }
        let texts = truth.messages.compactMap(\.text)
        func some(_ predicate: (String) -> Bool) -> Bool { texts.contains(where: predicate) }
        #expect(some { $0.unicodeScalars.contains { (0x0400...0x04FF).contains($0.value) } }, "Cyrillic")
        #expect(some { $0.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) } }, "CJK")
        #expect(some { $0.unicodeScalars.contains { (0x0600...0x06FF).contains($0.value) } }, "Arabic")
        #expect(some { $0.unicodeScalars.contains { $0.properties.isEmojiPresentation } }, "emoji")
        #expect(some { $0.contains("ß") || $0.contains("é") }, "diacritics")
        #expect(some { $0.contains("https://") })
        #expect(some { $0.contains("@example.") })
        #expect(some { $0.contains("\"") && $0.contains("NEAR") })
        let types = Set(truth.messages.flatMap { $0.attachments.compactMap(\.type) })
        #expect(types == ["image", "video", "audio", "file", "location"])
        #expect(truth.messages.contains { $0.extra["age"] != nil })
        #expect(truth.messages.contains { $0.extra["dialog_id"] != nil })
        #expect(truth.messages.contains { $0.recipientID == 0 })
        #expect(truth.messages.contains { $0.recipientID == nil })
        #expect(truth.messages.contains { ($0.updatedAt ?? 0) > $0.dateSent })
        #expect(truth.revisions > 0)
        #expect(truth.messages.allSatisfy { $0.readIDs.contains($0.senderID ?? -1) })
        #expect(truth.messages.contains { $0.readIDs.count > 1 })
    }

    @Test(
        "Invalid configurations are refused with the flag's name", arguments: ["--users", "--fail-rate", "--max-limit"])
    func invalidConfiguration(flag: String) throws {
        let configuration = EmulatorHarness.configuration {
            switch flag {
            case "--users": $0.users = 1
            case "--fail-rate": $0.failRate = 1.5
            default: $0.maxLimit = 0
            }
        }
        #expect {
            _ = try Emulator(configuration: configuration)
        } throws: { error in
            (error as? EmulatorSetupError)?.errorDescription?.contains(flag) == true
        }
    }
}

@Suite("Fast JSON writing")
struct FastJSONTests {
    @Test("Message.writeJSON writes exactly json.serialized() for every seeded message")
    func writeJSONMatchesSerialized() async throws {
        let truth = try await SeedDataTests.truth { $0.messages = 3000 }
        var edited = try #require(truth.messages.first)
        edited.extra = ["zzz": "last", "aaa": 1, "message": "shadowed", "dialog_id": .null]
        edited.read = nil
        for message in truth.messages + [edited] {
            var out: [UInt8] = Array("prefix,".utf8)
            message.writeJSON(into: &out)
            #expect(out == Array("prefix,".utf8) + message.json.serialized())
        }
    }
}
