import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import Testing

@testable import QuickBloxEmulator

@Suite("Live changes and the truth dump")
struct LiveAndTruthTests {
    @Test("Live changes add, edit and delete messages and change occupants; the truth records all of it")
    func liveChanges() async throws {
        try await EmulatorHarness.run { harness in
            let before = try await harness.truthMessages()
            let applied = try await harness.request(.post, "/_emulator/live?count=300")
            let kinds = try #require(try applied.json["applied"]?.arrayValue).compactMap(\.stringValue)
            #expect(Set(kinds).isSuperset(of: ["message", "edit", "hide", "delete"]))
            let after = try await harness.truthMessages()
            let truth = try await harness.truth()
            let deleted = Set(
                truth.filter { $0["kind"] == "deletion" && $0["type"] == "message" }.compactMap {
                    $0["_id"]?.stringValue
                })
            let added = Set(after.keys).subtracting(before.keys)
            // Some live messages are deleted again within the same batch.
            let createdThenDeleted = deleted.subtracting(before.keys)
            // A dialog deleted for everyone takes its messages with it (no message deletion lines).
            if kinds.contains("delete-dialog") {
                #expect(added.count + createdThenDeleted.count <= kinds.filter { $0 == "message" }.count)
            } else {
                #expect(added.count + createdThenDeleted.count == kinds.filter { $0 == "message" }.count)
            }
            // Hides are per user: the message stays, with who removed it and who still sees it.
            let hidden = truth.filter { $0["kind"] == "message" && $0["hidden_for"] != nil }
            #expect(hidden.count >= 1)
            #expect(hidden.count <= kinds.filter { $0 == "hide" }.count)
            #expect(deleted.count == kinds.filter { $0 == "delete" }.count)
            #expect(deleted.isDisjoint(with: after.keys))
            let edits = truth.filter { $0["kind"] == "revision" }.filter {
                ($0["superseded_at"]?.lenientInt ?? 0) > 1_767_225_600
            }
            #expect(edits.count == kinds.filter { $0 == "edit" }.count)
            // The API shows the same state: a new message is listed in its dialog. Live occupant changes may have
            // removed a sender since, so the message is one whose sender can still read its dialog.
            var occupants: [String: [Int]] = [:]
            for line in truth where line["kind"] == "dialog" {
                if let record = line["record"], let id = record["_id"]?.stringValue {
                    occupants[id] = (line["visible_to"] ?? record["occupants_ids"])?.lenientIntArray ?? []
                }
            }
            let hiddenIDs = Set(hidden.compactMap { $0["record"]?["_id"]?.stringValue })
            let readable = added.sorted().compactMap { after[$0] }.filter { message in
                !hiddenIDs.contains(message.id)
                    && (message.senderID.map { occupants[message.chatDialogID]?.contains($0) ?? false } ?? false)
            }
            let newMessage = try #require(readable.first)
            let visibleTo = try #require(newMessage.senderID)
            let listed = try await harness.messages(newMessage.chatDialogID, "_id=\(newMessage.id)", as: visibleTo)
            #expect(listed == [newMessage])
        }
    }

    @Test("The same seed makes the same live changes")
    func liveChangesAreSeeded() async throws {
        @Sendable func kinds() async throws -> [String] {
            try await EmulatorHarness.run { harness in
                try await harness.request(.post, "/_emulator/live?count=50").json["applied"]!.arrayValue!.compactMap(
                    \.stringValue)
            }
        }
        #expect(try await kinds() == kinds())
    }

    @Test("--live changes data on its own while serving")
    func liveService() async throws {
        try await EmulatorHarness.run({ $0.liveRate = 200 }) { harness in
            let before = try await harness.json("/_emulator/stats")
            try await Task.sleep(for: .milliseconds(600))
            let after = try await harness.json("/_emulator/stats")
            let changed = ["messages", "revisions", "deletions"].contains { before[$0] != after[$0] }
            #expect(changed)
        }
    }

    @Test("--live ends quietly when shut down, so the emulator exits 0 and writes its exit truth dump")
    func liveServiceStopsWithoutError() async throws {
        let emulator = try Emulator(configuration: EmulatorHarness.configuration())
        let live = LiveChanges(store: emulator.store, rate: 1000)
        let task = Task { try await live.run() }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: Never.self) { try await task.value }
    }

    @Test("GET /_emulator/truth is the dump: users, dialogs, messages in order, then revisions, deletions, blobs")
    func truthEndpoint() async throws {
        try await EmulatorHarness.run { harness in
            let response = try await harness.request(.get, "/_emulator/truth")
            #expect(response.status == .ok)
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(lines == (await harness.emulator.truthLines()))
            let kinds = try lines.map { try JSONValue(parsing: $0)["kind"]?.stringValue ?? "" }
            let order = ["user", "dialog", "message", "revision", "deletion", "blob"]
            #expect(kinds == kinds.sorted { order.firstIndex(of: $0)! < order.firstIndex(of: $1)! })
            #expect(kinds.filter { $0 == "user" }.count == 8)
            #expect(kinds.filter { $0 == "dialog" }.count == 20)
            #expect(kinds.filter { $0 == "message" }.count == 1500)
            let messages = try lines.map { try JSONValue(parsing: $0) }.filter { $0["kind"] == "message" }.map {
                try Message(json: $0["record"]!)
            }
            let keys = messages.map { ($0.chatDialogID, $0.dateSent, $0.id) }
            #expect(Set(messages.map(\.id)).count == messages.count)
            for (a, b) in zip(keys, keys.dropFirst()) where a.0 == b.0 {
                #expect((a.1, a.2) < (b.1, b.2))
            }
        }
    }

    @Test("A truth dump written to a file loads back as a fixture with the same state")
    func fixtureRoundTrip() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("qbarchive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("truth.jsonl").path
        let original = try Emulator(configuration: EmulatorHarness.configuration())
        await original.applyLiveChanges(100)
        try await original.writeTruth(to: path)
        let reloaded = try Emulator(configuration: EmulatorHarness.configuration { $0.fixturePath = path })
        let first = await original.truthLines()
        #expect(await reloaded.truthLines() == first)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == first.joined(separator: "\n") + "\n")
    }

    @Test("A broken fixture is refused with its line number")
    func badFixture() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).jsonl").path
        try "{\"kind\":\"user\",\"record\":{\"id\":1,\"login\":\"a\"}}\n{\"kind\":\"user\",\"record\":{}}\n"
            .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try Emulator(configuration: EmulatorHarness.configuration { $0.fixturePath = path })
        } throws: { error in
            (error as? EmulatorSetupError)?.errorDescription?.contains("\(path):2") == true
        }
    }
}
