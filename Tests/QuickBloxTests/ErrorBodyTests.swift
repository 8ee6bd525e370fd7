import QuickBlox
import Testing

@Suite("QuickBloxErrorBody")
struct ErrorBodyTests {
    @Test(arguments: [
        ("error_not_found", "The resource wasn't found", 40),
        ("error_permissions", "You don't have appropriate permissions to perform this operation", 79),
        ("error_unauthorized", "Unauthorized", 27),
    ])
    func listForm(_ fixture: String, _ message: String, _ contentLength: Int) throws {
        let text = try Fixture.text(fixture)
        let body = try #require(QuickBloxErrorBody(json: try JSONValue(parsing: text)))
        #expect(body.messages == [message])
        #expect(body.isObjectForm == false)
        #expect(body == .list(message))
        // Written back byte for byte, with the Content-Length seen on the wire.
        #expect(body.json.jsonString == text)
        #expect(body.json.serialized().count == contentLength)
    }

    @Test(arguments: [
        ("error_session_missing", "Required session does not exist", 55),
        ("error_unexpected_signature", "Unexpected signature", 44),
        ("error_bad_timestamp", "Bad timestamp", 37),
        ("error_need_user", "Forbidden. Need user.", 45),
    ])
    func baseObjectForm(_ fixture: String, _ message: String, _ contentLength: Int) throws {
        let text = try Fixture.text(fixture)
        let body = try #require(QuickBloxErrorBody(json: try JSONValue(parsing: text)))
        #expect(body.messages == [message])
        #expect(body.isObjectForm)
        #expect(body == .base(message))
        #expect(body.json.jsonString == text)
        #expect(body.json.serialized().count == contentLength)
    }

    @Test func nonBaseFieldIsPrefixedWithItsName() throws {
        let body = try #require(QuickBloxErrorBody(json: try Fixture.json("error_login_taken")))
        #expect(body.messages == ["login has already been taken"])
        #expect(body.isObjectForm)
        #expect(body.summary == "login has already been taken")
    }

    @Test func severalFieldsInSortedFieldOrder() throws {
        let json = try JSONValue(
            parsing: #"{"errors":{"login":["has already been taken","is too short"],"base":["Invalid"],"#
                + #""email":"is bad"}}"#)
        let body = try #require(QuickBloxErrorBody(json: json))
        #expect(body.messages == ["Invalid", "email is bad", "login has already been taken", "login is too short"])
        #expect(body.summary == "Invalid; email is bad; login has already been taken; login is too short")
    }

    @Test func severalListMessagesKeepTheirOrder() throws {
        let body = try #require(QuickBloxErrorBody(json: try JSONValue(parsing: #"{"errors":["b","a",404]}"#)))
        #expect(body.messages == ["b", "a", "404"])
        #expect(body.summary == "b; a; 404")
    }

    @Test func bareStringForm() throws {
        let body = try #require(QuickBloxErrorBody(json: ["errors": "Too Many Requests"]))
        #expect(body.messages == ["Too Many Requests"])
        #expect(body.isObjectForm == false)
    }

    @Test(arguments: [
        #"{}"#, #"{"error":"x"}"#, #"{"errors":null}"#, #"{"errors":5}"#, #"{"errors":true}"#, #"["errors"]"#,
        #""errors""#,
    ])
    func otherShapesAreNotErrorBodies(_ text: String) throws {
        #expect(QuickBloxErrorBody(json: try JSONValue(parsing: text)) == nil)
    }

    @Test func emptyForms() throws {
        #expect(QuickBloxErrorBody(json: ["errors": []])?.messages == [])
        #expect(QuickBloxErrorBody(json: ["errors": [:]])?.isObjectForm == true)
    }

    @Test func constructorsBuildBothForms() {
        #expect(QuickBloxErrorBody.list("Too Many Requests").json.jsonString == #"{"errors":["Too Many Requests"]}"#)
        #expect(QuickBloxErrorBody.base("a", "b").json.jsonString == #"{"errors":{"base":["a","b"]}}"#)
        #expect(QuickBloxErrorBody.list().messages.isEmpty)
        #expect(QuickBloxErrorBody(messages: ["x"], isObjectForm: true) == .base("x"))
    }

    @Test func jsonRoundTrips() {
        for body in [QuickBloxErrorBody.list("a", "b"), .base("Bad timestamp"), .list()] {
            #expect(QuickBloxErrorBody(json: body.json) == body)
        }
    }
}
