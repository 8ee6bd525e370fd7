import Foundation
import HTTPTypes
import HummingbirdTesting
import QuickBlox
import Testing

/// QuickBlox reference §8: deletion is per user unless the owner forces it. Every rule over real HTTP,
/// and a property test of random hides and force deletes by random occupants against a reference model.
@Suite("Emulator: per-user and forced deletion")
struct DeletionTests {
    @Test("Without force a message disappears for the caller only; every other occupant still lists it")
    func hideForMe() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let others = dialog.occupantIDs.filter { $0 != 100_001 }
            let theirs = try #require(messages.last { $0.senderID != 100_001 })
            let response = try await harness.request(
                .delete, "/chat/Message/\(theirs.id).json", headers: EmulatorHarness.asUser(100_001))
            #expect(response.status == .ok, "\(response.text)")
            #expect(
                try response.json == ["SuccessfullyDeleted": ["ids": [.string(theirs.id)]], "NotFound": ["ids": []]])
            #expect(try await harness.messages(dialog.id, "_id=\(theirs.id)").isEmpty)
            for other in others {
                #expect(try await harness.messages(dialog.id, "_id=\(theirs.id)", as: other).map(\.id) == [theirs.id])
            }
            // The caller's count drops, the others' does not.
            let mine = try await harness.json("/chat/Message.json?chat_dialog_id=\(dialog.id)&count=1")
            let other = try await harness.json("/chat/Message.json?chat_dialog_id=\(dialog.id)&count=1", as: others[0])
            #expect(mine["items"]?["count"]?.lenientInt == messages.count - 1)
            #expect(other["items"]?["count"]?.lenientInt == messages.count)
            // So do counts within a date range (answered from the range, less the caller's own removals).
            let upTo = "chat_dialog_id=\(dialog.id)&count=1&date_sent%5Blte%5D=\(theirs.dateSent)"
            let sentUpTo = messages.filter { $0.dateSent <= theirs.dateSent }.count
            #expect(try await harness.json("/chat/Message.json?\(upTo)")["items"]?["count"] == .int(sentUpTo - 1))
            #expect(
                try await harness.json("/chat/Message.json?\(upTo)", as: others[0])["items"]?["count"] == .int(sentUpTo)
            )
            // Truth: who removed it, since when, and who still sees it.
            let line = try #require(try await harness.truth().first { $0["record"]?["_id"]?.stringValue == theirs.id })
            #expect(line["hidden_for"]?["100001"]?.lenientInt != nil)
            #expect(line["visible_to"] == .array(others.map { .int($0) }))
            #expect(try await harness.truth().allSatisfy { $0["kind"] != "deletion" })
            // Hidden once is NotFound the second time, for that user only.
            let again = try await harness.request(
                .delete, "/chat/Message/\(theirs.id).json", headers: EmulatorHarness.asUser(100_001))
            #expect(try again.json == ["SuccessfullyDeleted": ["ids": []], "NotFound": ["ids": [.string(theirs.id)]]])
        }
    }

    @Test("force=1 by anyone but the message's sender or the dialog's owner is 403 WrongPermissions; nothing changes")
    func forceNeedsOwner() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let outsider = try #require(dialog.occupantIDs.first { $0 != dialog.userID && $0 != 100_001 })
            let victim = try #require(messages.last { $0.senderID != outsider })
            let mixed = [victim.id, "000000000000000000000000"].joined(separator: ",")
            let refused = try await harness.request(
                .delete, "/chat/Message/\(mixed).json", headers: EmulatorHarness.asUser(outsider), body: "force=1")
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("WrongPermissions"))
            #expect(try await harness.messages(dialog.id, "_id=\(victim.id)", as: outsider).count == 1)
            // The dialog owner may force-delete someone else's message.
            let owner = try #require(dialog.userID)
            let other = try #require(messages.last { $0.senderID != owner })
            let forced = try await harness.request(
                .delete, "/chat/Message/\(other.id),000000000000000000000000.json?force=1",
                headers: EmulatorHarness.asUser(owner))
            #expect(forced.status == .ok)
            #expect(
                try forced.json
                    == [
                        "SuccessfullyDeleted": ["ids": [.string(other.id)]],
                        "NotFound": ["ids": ["000000000000000000000000"]],
                    ])
            for occupant in dialog.occupantIDs {
                #expect(try await harness.messages(dialog.id, "_id=\(other.id)", as: occupant).isEmpty)
            }
        }
    }

    @Test("An API key without On-Behalf-Of deletes for everyone; an application session still needs a user")
    func apiKeyForms() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let target = try #require(messages.first)
            var apiKeyOnly = HTTPFields()
            apiKeyOnly[.authorization] = "ApiKey \(EmulatorHarness.apiKey)"
            let response = try await harness.request(.delete, "/chat/Message/\(target.id).json", headers: apiKeyOnly)
            #expect(response.status == .ok, "\(response.text)")
            for occupant in dialog.occupantIDs {
                #expect(try await harness.messages(dialog.id, "_id=\(target.id)", as: occupant).isEmpty)
            }
            let token = try await harness.token(.application)
            let appSession = try await harness.request(
                .delete, "/chat/Message/\(messages[1].id).json", headers: [HTTPField.Name("QB-Token")!: token])
            #expect(appSession.status == .unprocessableContent)
        }
    }

    @Test("Dialogs: without force only the caller's list loses it; force=1 is the owner's; several ids get the tally")
    func dialogs() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await harness.busiestDialog()
            let owner = try #require(dialog.userID)
            let other = try #require(dialog.occupantIDs.first { $0 != owner })
            let hide = try await harness.request(
                .delete, "/chat/Dialog/\(dialog.id).json", headers: EmulatorHarness.asUser(other))
            #expect(hide.status == .ok)
            #expect(try await !harness.dialogs(as: other).contains { $0.id == dialog.id })
            #expect(try await harness.dialogs(as: owner).contains { $0.id == dialog.id })
            _ = try await harness.json("/chat/Message.json?chat_dialog_id=\(dialog.id)", as: other, expect: .notFound)
            let line = try #require(
                try await harness.truth().first {
                    $0["kind"] == "dialog" && $0["record"]?["_id"]?.stringValue == dialog.id
                })
            #expect(line["hidden_for"]?[String(other)] != nil)
            #expect(line["visible_to"]?.arrayValue?.contains(.int(other)) == false)

            let third = try #require(
                try await harness.dialogs(as: owner).first { $0.id != dialog.id && $0.userID == owner })
            let notOwner = try #require(third.occupantIDs.first { $0 != owner })
            let refused = try await harness.request(
                .delete, "/chat/Dialog/\(third.id).json?force=1", headers: EmulatorHarness.asUser(notOwner))
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("WrongPermissions"))
            let many = try await harness.request(
                .delete, "/chat/Dialog/\(third.id),\(dialog.id),000000000000000000000000.json?force=1",
                headers: EmulatorHarness.asUser(owner))
            #expect(many.status == .ok)
            #expect(
                try many.json
                    == [
                        "SuccessfullyDeleted": ["ids": [.string(third.id), .string(dialog.id)]],
                        "NotFound": ["ids": ["000000000000000000000000"]],
                    ])
            for user in Set(third.occupantIDs + dialog.occupantIDs) {
                #expect(try await !harness.dialogs(as: user).contains { [third.id, dialog.id].contains($0.id) })
            }
            // The truth's deletion of a dialog keeps who had removed it for themselves before; the other has none.
            let deletions = try await harness.truth().filter { $0["kind"] == "deletion" && $0["type"] == "dialog" }
            let hidden = deletions.first { $0["_id"]?.stringValue == dialog.id }?["hidden_for"]
            #expect(hidden?.objectValue?.keys.sorted() == [String(other)])
            #expect(deletions.first { $0["_id"]?.stringValue == third.id }?["hidden_for"] == nil)
        }
    }

    @Test(
        "A fraction in a filter value is compared as given, not floored",
        arguments: [
            ("date_sent[gt]", 0.5, false, true), ("date_sent[gte]", 0.5, false, true),
            ("date_sent[lt]", 0.5, true, false),
            ("date_sent[lte]", 0.5, true, false), ("date_sent", 0.5, false, false), ("date_sent[ne]", 0.5, true, true),
            ("date_sent[gte]", -0.25, true, true), ("date_sent[lt]", -0.25, false, false),
            ("date_sent[in]", 0.5, false, false),
        ])
    func fractionalFilters(key: String, offset: Double, matchesAt: Bool, matchesAfter: Bool) async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let second = try #require(messages.dropFirst(messages.count / 2).first?.dateSent)
            let value = String(Double(second) + offset)
            let found = try await harness.messages(
                dialog.id, "\(key)=\(value)&limit=100&date_sent[lte]=\(second + 1)&date_sent[gte]=\(second)")
            let atSecond = messages.contains { $0.dateSent == second }
            #expect(found.contains { $0.dateSent == second } == (matchesAt && atSecond), "\(key)=\(value)")
            if messages.contains(where: { $0.dateSent == second + 1 }) {
                #expect(found.contains { $0.dateSent == second + 1 } == matchesAfter, "\(key)=\(value)")
            }
        }
    }

    /// A reference model of §8: per message, whether forced and who hid it; per dialog, who hid it.
    struct Model {
        var forced: Set<String> = []
        var hidden: [String: Set<Int>] = [:]

        func visible(_ id: String, to user: Int) -> Bool {
            !forced.contains(id) && !(hidden[id]?.contains(user) ?? false)
        }
    }

    @Test(
        "Random hides and force deletes by random occupants: every occupant's view equals the model's",
        arguments: [11, 12, 13])
    func property(seed: UInt64) async throws {
        try await EmulatorHarness.run { harness in
            var random = SeededRandom(seed: seed, stream: 1)
            let (dialog, messages) = try await harness.busiestDialog()
            let sample = Array(messages.suffix(40))
            var model = Model()
            for _ in 0..<60 {
                let user = random.pick(dialog.occupantIDs)
                let count = Int.random(in: 1...3, using: &random)
                let ids = (0..<count).map { _ in random.pick(sample).id }
                let force = random.chance(0.3)
                let response = try await harness.request(
                    .delete, "/chat/Message/\(ids.joined(separator: ",")).json\(force ? "?force=1" : "")",
                    headers: EmulatorHarness.asUser(user))
                var distinct: [String] = []
                for id in ids where !distinct.contains(id) { distinct.append(id) }
                let deletable = distinct.filter { model.visible($0, to: user) }
                let owns = { (id: String) in
                    sample.first { $0.id == id }?.senderID == user || dialog.userID == user
                }
                if force, !deletable.allSatisfy(owns) {
                    #expect(response.status == .forbidden)
                    continue
                }
                #expect(response.status == .ok, "\(response.text)")
                #expect(
                    try response.json
                        == [
                            "SuccessfullyDeleted": ["ids": .array(deletable.map(JSONValue.string))],
                            "NotFound": [
                                "ids": .array(distinct.filter { !deletable.contains($0) }.map(JSONValue.string))
                            ],
                        ])
                for id in deletable {
                    if force { model.forced.insert(id) } else { model.hidden[id, default: []].insert(user) }
                }
            }
            let inList = sample.map(\.id).joined(separator: ",")
            for user in dialog.occupantIDs {
                let seen = Set(try await harness.messages(dialog.id, "_id[in]=\(inList)&limit=100", as: user).map(\.id))
                #expect(seen == Set(sample.map(\.id).filter { model.visible($0, to: user) }), "user \(user)")
            }
            for line in try await harness.truth() where line["kind"] == "message" {
                guard let id = line["record"]?["_id"]?.stringValue, sample.contains(where: { $0.id == id }) else {
                    continue
                }
                let expected = dialog.occupantIDs.filter { model.visible(id, to: $0) }
                if model.hidden[id] != nil {
                    #expect(line["visible_to"] == .array(expected.map { .int($0) }), "\(id)")
                } else {
                    #expect(line["visible_to"] == nil)
                }
            }
        }
    }
}
