import QuickBlox
import Testing

@Suite("Session decoding")
struct SessionDecodingTests {
    @Test func createSessionExample() throws {
        let session = try Session(json: Fixture.json("session_create"))
        #expect(session.id == 1_151_827_623)
        #expect(session.applicationID == 76730)
        #expect(session.userID == 0)
        #expect(session.isUserSession == false)
        #expect(session.token == "c56f382b402fb482086db956064592d3cd012bba")
        #expect(session.nonce == 7334)
        #expect(session.ts == 1_567_349_756)
        #expect(session.createdAt == 1_567_349_756)
        #expect(session.updatedAt == 1_567_349_756)
        #expect(session.extra == ["_id": "1151827623"])
    }

    @Test func createSessionExampleRoundTripsExactly() throws {
        let inner = try #require(Fixture.json("session_create")["session"])
        #expect(try Session(json: inner).json == inner)
    }

    @Test func rbStyleSessionKeepsDeviceIDAndObjectID() throws {
        let session = try Session(json: Fixture.json("session_rb"))
        #expect(session.id == 18862)
        #expect(session.applicationID == 22)
        #expect(session.extra == ["_id": "572793c0a28f9a658800002a", "device_id": 0])
        #expect(session.createdAt == 1_462_211_520)
        let json = session.json
        #expect(json["_id"] == "572793c0a28f9a658800002a")
        #expect(json["device_id"] == 0)
        #expect(json["id"] == 18862)
    }

    @Test func getSessionWithOffsetDates() throws {
        let session = try Session(json: Fixture.json("session_get"))
        #expect(session.createdAt == 1_566_850_162)
        #expect(session.updatedAt == 1_566_850_162)
        #expect(session.userID == 96_753_878)
        #expect(session.isUserSession)
        #expect(session.json["created_at"] == "2019-08-26T20:09:22Z")
    }

    @Test func bareObjectAndWrapperDecodeTheSame() throws {
        let wrapped = try Fixture.json("session_create")
        let inner = try #require(wrapped["session"])
        #expect(try Session(json: wrapped) == Session(json: inner))
    }

    @Test func jwtTokenIsOpaque() throws {
        // The JWT shape from quickblox-android-sdk#782 (header and payload as quoted; the signature is made up).
        let token =
            "eyJhbGciOiJIUzUxMiIsInR5cCI6IkpXVCJ9"
            + ".eyJhY2Nlc3NfdHlwZSI6ImFwcGxpY2F0aW9uIiwiYXBwbGljYXRpb25faWQiOjkzNjAwLCJpYXQiOjE2NDY2NTE2NTQwMTYwMDl9"
            + ".c2lnbmF0dXJl"
        let session = try Session(json: ["id": 1, "application_id": 93600, "token": .string(token)])
        #expect(session.token == token)
        #expect(session.userID == 0)
        #expect(session.nonce == nil)
        #expect(session.ts == nil)
        #expect(session.createdAt == nil)
    }

    @Test func numericStringsAreAccepted() throws {
        let session = try Session(json: ["id": "5", "application_id": "76730", "user_id": "9", "token": "t"])
        #expect(session.id == 5)
        #expect(session.applicationID == 76730)
        #expect(session.userID == 9)
    }

    static let missingFields: [(JSONValue, String)] = [
        (["application_id": 1, "token": "t"], "id"),
        (["id": 1, "token": "t"], "application_id"),
        (["id": 1, "application_id": 1], "token"),
        (["id": 1, "application_id": 1, "token": ""], "token"),
        (["session": ["id": "x", "application_id": 1, "token": "t"]], "id"),
    ]

    @Test(arguments: SessionDecodingTests.missingFields)
    func missingFieldsAreNamed(_ json: JSONValue, _ field: String) throws {
        let error = #expect(throws: QuickBloxDecodingError.self) { try Session(json: json) }
        #expect(error?.kind == "session")
        #expect(error?.field == field)
    }

    @Test func memberwiseInitializer() throws {
        let session = Session(
            id: 1_151_827_623, applicationID: 76730, userID: 0, token: "c56f382b402fb482086db956064592d3cd012bba",
            nonce: 7334, ts: 1_567_349_756, createdAt: 1_567_349_756, updatedAt: 1_567_349_756,
            extra: ["_id": "1151827623"])
        #expect(session == (try Session(json: Fixture.json("session_create"))))
    }
}
