import Foundation
import QuickBlox
import Testing

@Suite("Message decoding")
struct MessageDecodingTests {
    /// A minimal valid message with `members` merged over it.
    func message(_ members: [String: JSONValue]) throws(QuickBloxDecodingError) -> Message {
        var base: [String: JSONValue] = [
            "_id": "5d755856a0eb47411e0b72a9", "chat_dialog_id": "5d75393ba28f9a17e1cb0f9e",
            "created_at": "2019-09-08T19:36:54Z", "date_sent": 1_567_971_414,
        ]
        base.merge(members) { _, new in new }
        return try Message(json: .object(base))
    }

    @Test func firstDocumentedMessage() throws {
        let message = try Message(json: Fixture.item("message_list", 0))
        #expect(message.id == "5d755856a0eb47411e0b72a9")
        #expect(message.chatDialogID == "5d75393ba28f9a17e1cb0f9e")
        #expect(message.text == "Hi guys")
        #expect(message.dateSent == 1_567_971_414)
        #expect(message.senderID == 96_753_878)
        #expect(message.recipientID == 0)
        #expect(message.attachments.isEmpty)
        #expect(message.readIDs == [96_753_878])
        #expect(message.deliveredIDs == [96_753_878])
        #expect(message.createdAt == 1_567_971_414)
        #expect(message.updatedAt == 1_567_971_414)
        #expect(message.read == 0)
        #expect(message.extra.isEmpty)
        #expect(message.customParameters.isEmpty)
    }

    @Test func secondDocumentedMessageKeepsItsCustomKeyAndAttachments() throws {
        let message = try Message(json: Fixture.item("message_list", 1))
        #expect(message.id == "5d76a618a28f9a1edfcb0f9b")
        #expect(message.text == "Hi guys!")
        #expect(message.dateSent == 1_568_056_856)
        #expect(message.createdAt == 1_568_056_856)
        #expect(message.recipientID == 343)
        #expect(message.extra == ["age": "25"])
        #expect(message.customParameters["age"] == .string("25"))
        #expect(message.attachments.count == 2)
        for attachment in message.attachments {
            #expect(attachment == Attachment(type: "image", id: "47863"))
        }
    }

    @Test(arguments: [0, 1])
    func documentedMessagesRoundTripExactly(_ index: Int) throws {
        let json = try Fixture.item("message_list", index)
        #expect(try Message(json: json).json == json)
    }

    @Test(arguments: [
        (JSONValue.int(1_567_971_414), 1_567_971_414),
        (.double(1_567_971_414), 1_567_971_414),
        (.double(1_567_971_414.987), 1_567_971_414),
        (.string("1567971414"), 1_567_971_414),
        (.string("1567971414.5"), 1_567_971_414),
        (.string(" 1567971414 "), 1_567_971_414),
        (.string("2019-09-08T19:36:54Z"), 1_567_971_414),
        (.string("2019-09-08T19:36:54+00:00"), 1_567_971_414),
        (.int(0), 0),
    ])
    func dateSentIsReadLeniently(_ dateSent: JSONValue, _ expected: Int) throws {
        #expect(try message(["date_sent": dateSent]).dateSent == expected)
    }

    @Test func dateSentFloatFromRawJSON() throws {
        let json = try JSONValue(
            parsing: #"{"_id":"a","chat_dialog_id":"d","date_sent":1567971414.123,"#
                + #""created_at":"2019-09-08T19:36:54Z"}"#)
        let message = try Message(json: json)
        #expect(message.dateSent == 1_567_971_414)
        #expect(message.json["date_sent"] == .int(1_567_971_414))
    }

    @Test(arguments: [JSONValue.null, .string("not a date"), .string("")])
    func unusableDateSentFallsBackToCreatedAt(_ dateSent: JSONValue) throws {
        let message = try message(["date_sent": dateSent, "created_at": "2019-09-09T19:20:56Z"])
        #expect(message.dateSent == 1_568_056_856)
    }

    @Test func missingDateSentFallsBackToCreatedAt() throws {
        let json: JSONValue = ["_id": "a", "chat_dialog_id": "d", "created_at": "2019-09-09T19:20:56+00:00"]
        #expect(try Message(json: json).dateSent == 1_568_056_856)
    }

    @Test func missingDateSentAndCreatedAtNamesDateSent() throws {
        let json: JSONValue = ["_id": "a", "chat_dialog_id": "d", "date_sent": nil]
        let error = #expect(throws: QuickBloxDecodingError.self) { try Message(json: json) }
        #expect(error?.kind == "message")
        #expect(error?.field == "date_sent")
    }

    @Test(arguments: [
        ("2019-09-08T19:36:54Z", 1_567_971_414),
        ("2019-09-08T19:36:54+00:00", 1_567_971_414),
        ("2019-09-08T19:36:54+0000", 1_567_971_414),
        ("2019-09-08T19:36:54.250Z", 1_567_971_414),
        ("2019-09-08T21:36:54+02:00", 1_567_971_414),
    ])
    func isoTimestampVariants(_ text: String, _ expected: Int) throws {
        let message = try message(["created_at": .string(text), "updated_at": .string(text)])
        #expect(message.createdAt == expected)
        #expect(message.updatedAt == expected)
    }

    @Test func numericTimestamps() throws {
        let message = try message(["created_at": 1_567_971_414, "updated_at": "1567971415"])
        #expect(message.createdAt == 1_567_971_414)
        #expect(message.updatedAt == 1_567_971_415)
    }

    @Test(arguments: [(JSONValue.int(0), 0 as Int?), (.null, nil), (.string("343"), 343), (.int(343), 343)])
    func recipientID(_ value: JSONValue, _ expected: Int?) throws {
        #expect(try message(["recipient_id": value]).recipientID == expected)
    }

    @Test func absentRecipientIsNil() throws {
        #expect(try message([:]).recipientID == nil)
    }

    @Test func nullRecipientRoundTripsAsNull() throws {
        let json = try message(["recipient_id": nil]).json
        #expect(json["recipient_id"] == .null)
    }

    @Test func nullTextAndAttachmentOnlyMessage() throws {
        let message = try message(["message": nil, "attachments": [["type": "image", "id": 47863]]])
        #expect(message.text == nil)
        #expect(message.attachments == [Attachment(type: "image", id: "47863")])
        #expect(message.json["message"] == .null)
    }

    @Test func numericTextIsReadAsText() throws {
        #expect(try message(["message": 42]).text == "42")
    }

    @Test func idListsAreLenient() throws {
        let message = try message(["read_ids": "1, 2", "delivered_ids": [3, "4", 5.0], "sender_id": "96753878"])
        #expect(message.readIDs == [1, 2])
        #expect(message.deliveredIDs == [3, 4, 5])
        #expect(message.senderID == 96_753_878)
    }

    @Test func missingListsAreEmpty() throws {
        let message = try message([:])
        #expect(message.readIDs.isEmpty)
        #expect(message.deliveredIDs.isEmpty)
        #expect(message.attachments.isEmpty)
        #expect(message.read == nil)
        #expect(message.senderID == nil)
        #expect(message.text == nil)
    }

    @Test func customTopLevelKeysArePreserved() throws {
        let custom: [String: JSONValue] = [
            "age": "25", "dialog_id": "5d75393ba28f9a17e1cb0f9e", "save_to_history": 1,
            "nested": ["a": [1, 2], "b": nil], "flag": true, "ratio": 0.5,
        ]
        let message = try message(custom)
        #expect(message.customParameters == custom)
        for (key, value) in custom {
            #expect(message.json[key] == value, "\(key)")
        }
    }

    @Test func nullValuedUnknownKeysAreKept() throws {
        let message = try message(["views_count": nil, "x_future_field": nil])
        #expect(message.extra == ["views_count": .null, "x_future_field": .null])
        #expect(message.json["views_count"] == .null)
        #expect(message.json.keys.contains("x_future_field"))
    }

    @Test func roundTripKeepsEveryKey() throws {
        let text = #"""
            {"_id":"5d76a618a28f9a1edfcb0f9b","age":"25","attachments":[{"type":"image","id":47863,"uid":"u1",
            "url":"https://example.com/u1","name":"a.png","size":1024,"content-type":"image/png","data":{"w":10}}],
            "chat_dialog_id":"5d75393ba28f9a17e1cb0f9e","created_at":"2019-09-09T19:20:56+00:00",
            "date_sent":"1568056856","delivered_ids":[96753878],"message":null,"read_ids":[],"recipient_id":null,
            "sender_id":96753878,"updated_at":"2019-09-09T19:20:56Z","read":1,"dialog_id":"x","unknown_null":null,
            "custom_obj":{"k":[1,"2",null]}}
            """#
        let json = try JSONValue(parsing: text)
        let output = try Message(json: json).json
        #expect(output.keys.isSuperset(of: json.keys), "missing \(json.keys.subtracting(output.keys))")
        for key in ["age", "dialog_id", "unknown_null", "custom_obj", "_id", "chat_dialog_id", "sender_id", "read"] {
            #expect(output[key] == json[key], "\(key)")
        }
        let attachment = try #require(output["attachments"]?.arrayValue?.first)
        #expect(attachment.keys == ["type", "id", "uid", "url", "name", "size", "content-type", "data"])
        #expect(attachment["content-type"] == "image/png")
        #expect(attachment["data"] == ["w": 10])
        #expect(attachment["id"] == "47863")
        // Normalised fields: unix seconds as an int, ISO dates with Z.
        #expect(output["date_sent"] == .int(1_568_056_856))
        #expect(output["created_at"] == "2019-09-09T19:20:56Z")
    }

    @Test(
        "A modelled optional key sent as null survives the round trip as null, and is no custom parameter",
        arguments: ["read"], ["type", "id", "uid", "url", "name", "size"])
    func knownOptionalKeysSentAsNullAreKept(messageKey: String, attachmentKey: String) throws {
        let json: JSONValue = [
            "_id": "a", "chat_dialog_id": "d", "date_sent": 1, messageKey: nil,
            "attachments": [["type": "image", "id": "1", attachmentKey: nil]],
        ]
        let message = try Message(json: json)
        let output = message.json
        #expect(output[messageKey] == .null)
        #expect(output["attachments"]?.arrayValue?.first?[attachmentKey] == .null)
        #expect(message.customParameters[messageKey] == nil)
        #expect(try Message(json: output) == message)
        // The fast writer (the emulator's pages) agrees with the model.
        var bytes: [UInt8] = []
        message.writeJSON(into: &bytes)
        #expect(try JSONValue(parsing: Data(bytes)) == output)
    }

    @Test func decodingTwiceIsStable() throws {
        let json: JSONValue = [
            "_id": "a", "chat_dialog_id": "d", "date_sent": 1.5e9, "created_at": "2017-07-14T02:40:00+00:00", "x": nil,
        ]
        let once = try Message(json: json)
        let twice = try Message(json: once.json)
        #expect(once == twice)
        #expect(once.json == twice.json)
    }

    static let missingFields: [([String: JSONValue], String)] = [
        (["_id": nil], "_id"),
        (["_id": ""], "_id"),
        (["_id": ["$oid": "x"]], "_id"),
        (["chat_dialog_id": nil], "chat_dialog_id"),
        (["chat_dialog_id": ""], "chat_dialog_id"),
    ]

    @Test(arguments: MessageDecodingTests.missingFields)
    func requiredFieldErrorsNameTheField(_ members: [String: JSONValue], _ field: String) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try message(members) }
        #expect(error?.kind == "message")
        #expect(error?.field == field)
        #expect(error?.errorDescription == "QuickBlox message: field `\(field)` is missing or empty")
    }

    @Test func missingIDNamesTheField() throws {
        let error = #expect(throws: QuickBloxDecodingError.self) {
            try Message(json: ["chat_dialog_id": "d", "date_sent": 1])
        }
        #expect(error?.field == "_id")
    }

    @Test(arguments: [JSONValue.array([]), .string("x"), .null, .int(1)])
    func nonObjectIsRejected(_ json: JSONValue) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try Message(json: json) }
        #expect(error?.kind == "message")
        #expect(error?.field == nil)
        #expect(error?.errorDescription == "QuickBlox message: is not a JSON object")
    }

    @Test func badAttachmentIsRejected() throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try message(["attachments": ["image"]]) }
        #expect(error?.kind == "attachment")
    }

    @Test func decodableThroughFoundation() throws {
        let data = try Fixture.data("message_list")
        struct Envelope: Decodable { var items: [Message] }
        let envelope = try JSONDecoder().decode(Envelope.self, from: data)
        #expect(envelope.items.map(\.id) == ["5d755856a0eb47411e0b72a9", "5d76a618a28f9a1edfcb0f9b"])
        #expect(envelope.items[1].extra["age"] == "25")
    }

    @Test func foundationDecodingErrorNamesTheField() throws {
        let data = Data(#"{"chat_dialog_id":"d","date_sent":1}"#.utf8)
        let error = #expect(throws: QuickBloxDecodingError.self) { try JSONDecoder().decode(Message.self, from: data) }
        #expect(error?.field == "_id")
    }

    @Test func encodableThroughFoundation() throws {
        let message = try Message(json: Fixture.item("message_list", 1))
        let data = try JSONEncoder().encode(message)
        #expect(try JSONValue(parsing: data) == Fixture.item("message_list", 1))
    }

    @Test func decodesFromBytes() throws {
        let bytes = Array(#"{"_id":"a","chat_dialog_id":"d","date_sent":"17","x":[]}"#.utf8)
        let message = try Message(jsonData: bytes)
        #expect(message.dateSent == 17)
        #expect(message.extra == ["x": []])
    }

    @Test func memberwiseInitializerBuildsTheSameRecord() throws {
        let built = Message(
            id: "5d76a618a28f9a1edfcb0f9b", chatDialogID: "5d75393ba28f9a17e1cb0f9e", text: "Hi guys!",
            dateSent: 1_568_056_856, senderID: 96_753_878, recipientID: 343,
            attachments: [Attachment(type: "image", id: "47863"), Attachment(type: "image", id: "47863")],
            readIDs: [96_753_878], deliveredIDs: [96_753_878], createdAt: 1_568_056_856, updatedAt: 1_568_056_856,
            read: 0, extra: ["age": "25"])
        #expect(built == (try Message(json: Fixture.item("message_list", 1))))
        #expect(built.json == (try Fixture.item("message_list", 1)))
    }
}
