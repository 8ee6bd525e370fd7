import QuickBlox
import Testing

@Suite("Attachment decoding")
struct AttachmentDecodingTests {
    @Test(arguments: [
        (JSONValue.string("47863"), "47863"),
        (.int(47863), "47863"),
        (.double(47863), "47863"),
        (.string("5d76a618a28f9a1edfcb0f9b"), "5d76a618a28f9a1edfcb0f9b"),
    ])
    func idIsStringOrNumber(_ id: JSONValue, _ expected: String) throws {
        let attachment = try Attachment(json: ["type": "image", "id": id])
        #expect(attachment.id == expected)
        #expect(attachment.json["id"] == .string(expected))
    }

    @Test func documentedShape() throws {
        let attachment = try Attachment(json: ["type": "image", "id": "47863", "url": "https://example.com/b/47863"])
        #expect(attachment.type == "image")
        #expect(attachment.id == "47863")
        #expect(attachment.url == "https://example.com/b/47863")
        #expect(attachment.uid == nil)
        #expect(attachment.name == nil)
        #expect(attachment.size == nil)
        #expect(attachment.extra.isEmpty)
    }

    @Test func everyModelledFieldAndCustomKeys() throws {
        let json: JSONValue = [
            "type": "file", "id": 1, "uid": "9a8b7c", "url": "u", "name": "report.pdf", "size": "2048",
            "content-type": "application/pdf", "data": "{\"pages\":3}", "customParam": ["x": nil],
        ]
        let attachment = try Attachment(json: json)
        #expect(attachment.uid == "9a8b7c")
        #expect(attachment.name == "report.pdf")
        #expect(attachment.size == 2048)
        #expect(
            attachment.extra == ["content-type": "application/pdf", "data": "{\"pages\":3}", "customParam": ["x": nil]])
        let output = attachment.json
        #expect(output.keys == json.keys)
        #expect(output["size"] == 2048)
        #expect(output["customParam"] == ["x": nil])
    }

    @Test func absentFieldsStayAbsent() throws {
        let json: JSONValue = ["type": "image", "id": "47863"]
        #expect(try Attachment(json: json).json == json)
        #expect(Attachment(type: nil).json == [:])
    }

    @Test func locationAttachmentWithoutID() throws {
        let attachment = try Attachment(json: ["type": "location", "data": ["lat": 52.5, "lng": 13.4]])
        #expect(attachment.id == nil)
        #expect(attachment.extra["data"] == ["lat": 52.5, "lng": 13.4])
    }

    @Test func nullValuedUnknownKeysAreKept() throws {
        let attachment = try Attachment(json: ["type": "image", "thumb": nil])
        #expect(attachment.json == ["type": "image", "thumb": nil])
    }

    @Test(arguments: [JSONValue.string("image"), .array([]), .null])
    func nonObjectIsRejected(_ json: JSONValue) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try Attachment(json: json) }
        #expect(error?.kind == "attachment")
    }
}
