import Foundation
import QuickBlox
import Testing

@Suite("Dialog decoding")
struct DialogDecodingTests {
    func dialog(_ members: [String: JSONValue]) throws(QuickBloxDecodingError) -> Dialog {
        var base: [String: JSONValue] = ["_id": "5d75393ba28f9a17e1cb0f9e", "type": 2]
        base.merge(members) { _, new in new }
        return try Dialog(json: .object(base))
    }

    @Test func documentedDialog() throws {
        let dialog = try Dialog(json: Fixture.item("dialog_list", 0))
        #expect(dialog.id == "5d75393ba28f9a17e1cb0f9e")
        #expect(dialog.type == .group)
        #expect(dialog.name == "New Year party")
        #expect(dialog.photo == "68123")
        #expect(dialog.userID == 96_753_878)
        #expect(dialog.occupantIDs == [96_753_878, 96_754_523, 96_830_631, 96_831_328, 96_831_397])
        #expect(dialog.adminIDs == nil)
        #expect(dialog.createdAt == 1_567_963_451)
        #expect(dialog.updatedAt == 1_567_971_414)
        #expect(dialog.lastMessage == "sure, I can wait")
        #expect(dialog.lastMessageDateSent == 1_567_971_414)
        #expect(dialog.lastMessageID == "5d755856a0eb47411e0b72a9")
        #expect(dialog.lastMessageUserID == 96_753_878)
        #expect(dialog.unreadMessagesCount == 0)
        #expect(dialog.xmppRoomJID == "76730_5d75393ba28f9a17e1cb0f9e@muc.chat.quickblox.com")
        #expect(dialog.data == nil)
        #expect(dialog.extra.isEmpty)
    }

    @Test func documentedDialogRoundTripsExactly() throws {
        let json = try Fixture.item("dialog_list", 0)
        #expect(try Dialog(json: json).json == json)
    }

    @Test func emptyDialogHasNullLastMessageFields() throws {
        let dialog = try dialog([
            "type": 3, "name": "Bob", "photo": nil, "xmpp_room_jid": nil, "occupants_ids": [1, 2],
            "last_message": nil, "last_message_date_sent": nil, "last_message_id": nil,
            "last_message_user_id": nil, "unread_messages_count": nil,
        ])
        #expect(dialog.type == .private)
        #expect(dialog.name == "Bob")
        #expect(dialog.photo == nil)
        #expect(dialog.xmppRoomJID == nil)
        #expect(dialog.lastMessage == nil)
        #expect(dialog.lastMessageDateSent == nil)
        #expect(dialog.lastMessageID == nil)
        #expect(dialog.lastMessageUserID == nil)
        #expect(dialog.unreadMessagesCount == nil)
        #expect(dialog.extra.isEmpty)
        let json = dialog.json
        for key in ["last_message", "last_message_date_sent", "last_message_id", "last_message_user_id", "photo"] {
            #expect(json[key] == .null, "\(key)")
        }
    }

    @Test(arguments: [
        (JSONValue.int(1_567_971_414), 1_567_971_414 as Int?),
        (.double(1_567_971_414.5), 1_567_971_414),
        (.string("1567971414"), 1_567_971_414),
        (.string("2019-09-08T19:36:54Z"), 1_567_971_414),
        (.null, nil),
    ])
    func lastMessageDateSentIsLenient(_ value: JSONValue, _ expected: Int?) throws {
        #expect(try dialog(["last_message_date_sent": value]).lastMessageDateSent == expected)
    }

    @Test func customDataIsPreserved() throws {
        let data: JSONValue = ["class_name": "CoolDialog", "category": "friends", "age": 25, "tags": ["a", "b"]]
        let dialog = try dialog(["data": data])
        #expect(dialog.data == data)
        #expect(dialog.data?["class_name"] == "CoolDialog")
        #expect(dialog.json["data"] == data)
        #expect(dialog.extra["data"] == nil)
    }

    @Test func unknownKeysAreKept() throws {
        let dialog = try dialog([
            "is_join_required": nil, "occupants_count": 5, "pinned_messages_ids": ["5d755856a0eb47411e0b72a9"],
        ])
        #expect(
            dialog.extra == [
                "is_join_required": nil, "occupants_count": 5, "pinned_messages_ids": ["5d755856a0eb47411e0b72a9"],
            ])
        let json = dialog.json
        #expect(json.keys.isSuperset(of: ["is_join_required", "occupants_count", "pinned_messages_ids"]))
        #expect(json["is_join_required"] == .null)
    }

    @Test func adminIDs() throws {
        let dialog = try dialog(["admin_ids": [96_753_878, "96754523"]])
        #expect(dialog.adminIDs == [96_753_878, 96_754_523])
        #expect(dialog.json["admin_ids"] == [96_753_878, 96_754_523])
        #expect(try self.dialog(["admin_ids": []]).adminIDs == [])
        #expect(try self.dialog([:]).json.keys.contains("admin_ids") == false)
    }

    @Test func publicDialogWithoutOccupants() throws {
        let dialog = try dialog(["type": 1])
        #expect(dialog.type == .publicGroup)
        #expect(dialog.occupantIDs.isEmpty)
        #expect(dialog.json["occupants_ids"] == [])
    }

    @Test(arguments: [
        (JSONValue.int(3), DialogType.private), (.string("2"), .group), (.int(7), DialogType(rawValue: 7)),
    ])
    func typeIsLenient(_ type: JSONValue, _ expected: DialogType) throws {
        #expect(try dialog(["type": type]).type == expected)
    }

    static let missingFields: [([String: JSONValue], String)] = [
        (["_id": nil], "_id"),
        (["_id": ""], "_id"),
        (["type": nil], "type"),
        (["type": "group"], "type"),
        (["type": [2]], "type"),
    ]

    @Test(arguments: DialogDecodingTests.missingFields)
    func requiredFieldErrorsNameTheField(_ members: [String: JSONValue], _ field: String) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try dialog(members) }
        #expect(error?.kind == "dialog")
        #expect(error?.field == field)
        #expect(error?.errorDescription?.contains("`\(field)`") == true)
    }

    @Test func timestampsAcceptBothISOForms() throws {
        let dialog = try dialog(["created_at": "2019-09-08T17:24:11+00:00", "updated_at": "2019-09-08T19:36:54Z"])
        #expect(dialog.createdAt == 1_567_963_451)
        #expect(dialog.updatedAt == 1_567_971_414)
        #expect(dialog.json["created_at"] == "2019-09-08T17:24:11Z")
    }

    @Test func memberwiseInitializerBuildsTheDocumentedDialog() throws {
        let built = Dialog(
            id: "5d75393ba28f9a17e1cb0f9e", type: .group, name: "New Year party", photo: "68123", userID: 96_753_878,
            occupantIDs: [96_753_878, 96_754_523, 96_830_631, 96_831_328, 96_831_397], createdAt: 1_567_963_451,
            updatedAt: 1_567_971_414, lastMessage: "sure, I can wait", lastMessageDateSent: 1_567_971_414,
            lastMessageID: "5d755856a0eb47411e0b72a9", lastMessageUserID: 96_753_878, unreadMessagesCount: 0,
            xmppRoomJID: "76730_5d75393ba28f9a17e1cb0f9e@muc.chat.quickblox.com")
        #expect(built.json == (try Fixture.item("dialog_list", 0)))
    }

    @Test func codableThroughFoundation() throws {
        let json = try Fixture.item("dialog_list", 0)
        let dialog = try JSONDecoder().decode(Dialog.self, from: Data(json.jsonString.utf8))
        #expect(try JSONValue(parsing: JSONEncoder().encode(dialog)) == json)
    }
}
