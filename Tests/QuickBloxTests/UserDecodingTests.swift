import QuickBlox
import Testing

@Suite("User decoding")
struct UserDecodingTests {
    static let userJSON: JSONValue = [
        "id": 96_753_878, "login": "amigo30", "email": "amigo30@example.com", "full_name": "Amigo Thirty",
        "phone": nil, "created_at": "2019-09-01T14:55:56Z", "updated_at": "2019-09-08T19:36:54+00:00",
        "last_request_at": "2019-09-08T19:36:54Z", "custom_data": nil, "user_tags": "friends,chat",
        "external_user_id": nil, "blob_id": 68123, "website": "https://example.com",
    ]

    @Test func decodesTheWrapper() throws {
        let user = try User(json: ["user": Self.userJSON])
        #expect(user.id == 96_753_878)
        #expect(user.login == "amigo30")
        #expect(user.email == "amigo30@example.com")
        #expect(user.fullName == "Amigo Thirty")
        #expect(user.phone == nil)
        #expect(user.createdAt == 1_567_349_756)
        #expect(user.updatedAt == 1_567_971_414)
        #expect(user.lastRequestAt == 1_567_971_414)
        #expect(user.customData == nil)
        #expect(user.userTags == "friends,chat")
        #expect(user.extra == ["external_user_id": nil, "blob_id": 68123, "website": "https://example.com"])
        #expect(try User(json: Self.userJSON) == user)
    }

    @Test func roundTripKeepsEveryKey() throws {
        let user = try User(json: Self.userJSON)
        #expect(user.json.keys == Self.userJSON.keys)
        #expect(user.wrapped == ["user": user.json])
        #expect(try User(json: user.wrapped) == user)
    }

    @Test func missingIDIsNamed() throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try User(json: ["user": ["login": "x"]]) }
        #expect(error?.kind == "user")
        #expect(error?.field == "id")
    }
}
