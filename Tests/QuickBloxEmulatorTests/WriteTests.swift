import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import QuickBlox
import QuickBloxEmulator
import Testing

@Suite("Creating, editing and deleting dialogs and messages")
struct WriteTests {
    static let jsonBody: HTTPFields = {
        var fields = EmulatorHarness.asUser(100_001)
        fields[.contentType] = "application/json"
        return fields
    }()

    static func form(as user: Int) -> HTTPFields {
        var fields = EmulatorHarness.asUser(user)
        fields[.contentType] = "application/x-www-form-urlencoded"
        return fields
    }

    @Test("POST /chat/Message: 201, custom parameters kept, dialog's last message updated")
    func createMessage() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await harness.busiestDialog()
            let body = """
                {"chat_dialog_id":"\(dialog.id)","message":"Ünïcode <b>hi</b> 👋","age":"31",\
                "attachments":[{"type":"image","id":"123","name":"cat.jpg"}]}
                """
            let response = try await harness.request(.post, "/chat/Message.json", headers: Self.jsonBody, body: body)
            #expect(response.status == .created, "\(response.text)")
            let created = try Message(json: response.json)
            #expect(created.text == "Ünïcode <b>hi</b> 👋")
            #expect(created.senderID == 100_001)
            #expect(created.extra["age"] == "31")
            #expect(created.attachments == [Attachment(type: "image", id: "123", name: "cat.jpg")])
            let listed = try await harness.messages(dialog.id, "_id=\(created.id)")
            #expect(listed == [created])
            let updated = try await harness.json("/chat/Dialog/\(dialog.id).json")
            #expect(updated["last_message_id"]?.stringValue == created.id)
            #expect(updated["last_message"]?.stringValue == created.text)
            #expect(try await harness.truthMessages()[created.id] == created)
        }
    }

    @Test("Form-encoded messages with attachments[0][type] become structured attachments")
    func createMessageFromForm() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, _) = try await harness.busiestDialog()
            let body =
                "chat_dialog_id=\(dialog.id)&message=hello+there&attachments%5B0%5D%5Btype%5D=audio&attachments[0][id]=77"
            let response = try await harness.request(
                .post, "/chat/Message", headers: Self.form(as: 100_001), body: body)
            #expect(response.status == .created, "\(response.text)")
            let created = try Message(json: response.json)
            #expect(created.text == "hello there")
            #expect(created.attachments.map(\.type) == ["audio"])
            #expect(created.attachments.first?.id == "77")
        }
    }

    @Test("An edit keeps the old text as a revision; only the sender may edit")
    func editMessage() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let mine = try #require(messages.last { $0.senderID == 100_001 })
            let theirs = try #require(messages.last { $0.senderID != 100_001 })
            let edit = try await harness.request(
                .put, "/chat/Message/\(mine.id).json", headers: Self.form(as: 100_001), body: "message=corrected")
            #expect(edit.status == .ok)
            let after = try await harness.messages(dialog.id, "_id=\(mine.id)")
            #expect(after.first?.text == "corrected")
            #expect((after.first?.updatedAt ?? 0) > (mine.updatedAt ?? 0))
            let revisions = try await harness.truth().filter { $0["kind"] == "revision" }
            let revision = try #require(revisions.last)
            #expect(try Message(json: revision["record"]!) == mine)
            let refused = try await harness.request(
                .put, "/chat/Message/\(theirs.id).json", headers: Self.form(as: 100_001), body: "message=nope")
            #expect(refused.status == .forbidden)
        }
    }

    @Test("Deleting messages with force=1 removes them for everyone and records tombstones with their content")
    func deleteMessages() async throws {
        try await EmulatorHarness.run { harness in
            let (dialog, messages) = try await harness.busiestDialog()
            let mine = messages.filter { $0.senderID == 100_001 }.suffix(2)
            #expect(mine.count == 2)
            let ids = mine.map(\.id).joined(separator: ",")
            let response = try await harness.request(
                .delete, "/chat/Message/\(ids).json?force=1", headers: EmulatorHarness.asUser(100_001))
            #expect(response.status == .ok)
            #expect(
                try response.json
                    == ["SuccessfullyDeleted": ["ids": .array(mine.map { .string($0.id) })], "NotFound": ["ids": []]])
            for occupant in dialog.occupantIDs {
                #expect(try await harness.messages(dialog.id, "_id[in]=\(ids)", as: occupant).isEmpty)
            }
            let deletions = try await harness.truth().filter { $0["kind"] == "deletion" }
            #expect(Set(deletions.compactMap { $0["_id"]?.stringValue }) == Set(mine.map(\.id)))
            #expect(deletions.allSatisfy { $0["type"] == "message" && $0["deleted_at"]?.lenientInt != nil })
            let again = try await harness.request(
                .delete, "/chat/Message/\(ids).json?force=1", headers: EmulatorHarness.asUser(100_001))
            #expect(again.status == .ok)
            #expect(
                try again.json
                    == ["SuccessfullyDeleted": ["ids": []], "NotFound": ["ids": .array(mine.map { .string($0.id) })]])
        }
    }

    @Test("Dialogs: create a group, add and remove occupants, rename, leave, and delete for everyone")
    func dialogLifecycle() async throws {
        try await EmulatorHarness.run { harness in
            let created = try await harness.request(
                .post, "/chat/Dialog.json", headers: Self.jsonBody,
                body:
                    #"{"type":2,"name":"Incident review","occupants_ids":"100002,100003","data":{"class_name":"Case"}}"#
            )
            #expect(created.status == .created, "\(created.text)")
            let dialog = try Dialog(json: created.json)
            #expect(dialog.type == .group)
            #expect(dialog.occupantIDs == [100_001, 100_002, 100_003])
            #expect(dialog.xmppRoomJID == "1_\(dialog.id)@muc.chat.quickblox.com")
            #expect(dialog.lastMessage == nil && dialog.lastMessageDateSent == nil)
            #expect(dialog.data?["class_name"] == "Case")

            let push = try await harness.request(
                .put, "/chat/Dialog/\(dialog.id).json", headers: Self.form(as: 100_001),
                body: "push_all%5Boccupants_ids%5D%5B%5D=100004&pull_all[occupants_ids][]=100002&name=Renamed")
            #expect(push.status == .ok, "\(push.text)")
            let changed = try Dialog(json: push.json)
            #expect(changed.occupantIDs == [100_001, 100_003, 100_004])
            #expect(changed.name == "Renamed")

            // Without force the dialog leaves 100003's list only; the others keep it, occupants unchanged.
            let leave = try await harness.request(
                .delete, "/chat/Dialog/\(dialog.id).json", headers: EmulatorHarness.asUser(100_003))
            #expect(leave.status == .ok)
            #expect(
                try await harness.json("/chat/Dialog/\(dialog.id).json")["occupants_ids"]
                    == [100_001, 100_003, 100_004])
            _ = try await harness.json("/chat/Dialog/\(dialog.id).json", as: 100_003, expect: .notFound)

            let notOwner = try await harness.request(
                .delete, "/chat/Dialog/\(dialog.id).json?force=1", headers: EmulatorHarness.asUser(100_004))
            #expect(notOwner.status == .forbidden)
            let force = try await harness.request(
                .delete, "/chat/Dialog/\(dialog.id).json?force=1", headers: EmulatorHarness.asUser(100_001))
            #expect(force.status == .ok)
            _ = try await harness.json("/chat/Dialog/\(dialog.id).json", expect: .notFound)
            let tombstone = try #require(try await harness.truth().last { $0["kind"] == "deletion" })
            #expect(tombstone["type"] == "dialog")
            #expect(tombstone["_id"]?.stringValue == dialog.id)
        }
    }

    @Test("A private dialog with the same two people is returned, not duplicated")
    func privateDialogIsUnique() async throws {
        try await EmulatorHarness.run { harness in
            let body = #"{"type":3,"occupants_ids":[100008]}"#
            let first = try await harness.request(.post, "/chat/Dialog.json", headers: Self.jsonBody, body: body)
            let second = try await harness.request(.post, "/chat/Dialog.json", headers: Self.jsonBody, body: body)
            #expect(try Dialog(json: first.json).id == Dialog(json: second.json).id)
            #expect(try Dialog(json: first.json).xmppRoomJID == nil)
        }
    }

    @Test("Validation errors use the object form naming the field")
    func validationErrors() async throws {
        try await EmulatorHarness.run { harness in
            let response = try await harness.request(
                .post, "/chat/Dialog.json", headers: Self.jsonBody, body: #"{"type":2,"occupants_ids":[100002]}"#)
            #expect(response.status == .unprocessableContent)
            #expect(response.text == #"{"errors":{"name":["can't be blank"]}}"#)
            let badJSON = try await harness.request(.post, "/chat/Dialog.json", headers: Self.jsonBody, body: "{nope")
            #expect(badJSON.status == .badRequest)
            #expect(try QuickBloxErrorBody(json: badJSON.json) != nil)
        }
    }

    @Test("Unread counts follow new messages and reads")
    func unreadCounts() async throws {
        try await EmulatorHarness.run { harness in
            let created = try await harness.request(
                .post, "/chat/Dialog.json", headers: Self.jsonBody, body: #"{"type":3,"occupants_ids":[100007]}"#)
            let dialog = try Dialog(json: created.json)
            for text in ["one", "two", "three"] {
                _ = try await harness.request(
                    .post, "/chat/Message.json", headers: Self.form(as: 100_001),
                    body: "chat_dialog_id=\(dialog.id)&message=\(text)")
            }
            let unread = try await harness.json("/chat/Message/unread.json?chat_dialog_ids=\(dialog.id)", as: 100_007)
            #expect(unread == .object(["total": 3, dialog.id: 3]))
            _ = try await harness.json("/chat/Message.json?chat_dialog_id=\(dialog.id)&limit=2", as: 100_007)
            let after = try await harness.json("/chat/Dialog/\(dialog.id).json", as: 100_007)
            #expect(after["unread_messages_count"] == 1)
        }
    }
}
